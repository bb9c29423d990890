"""Chapter A1's experiments: what each lesson records against a real server.

``loop``   A1·1–A1·3  one task: a single request, the loop, 20 rounds (cache on / off), runaway   record a1
``live_run``   A1·L  the live model (Qwen2.5 Coder 0.5B) drives miniagent's loop on the A1 task   record a1-live
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a1", "a1", "A1 一个循环:一次请求、循环、20 轮(缓存开/关)、停不下来(2 核上 5-10 分钟)",
               f"{__name__}.loop", {"a1-loop-smollm2-llamacpp": "."}),
    Experiment("a1-live", "a1", "A1 live 模型:Qwen2.5 Coder 0.5B 自己驱动循环(先 server fetch --model live;2 核上约 10-20 分钟)",
               f"{__name__}.live_run", {"a1-live-qwen2.5-coder-0.5b-llamacpp": "."}),
]
