"""Chapter A1's experiments: what each lesson records against a real server.

``live_run``   A1·L  the live model (Qwen2.5 Coder 0.5B) drives miniagent's loop on the A1 task   record a1-live
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a1-live", "a1", "A1 真实模型:Qwen2.5 Coder 0.5B 自己驱动循环(先 server fetch --model live;2 核上约 10-20 分钟)",
               f"{__name__}.live_run", {"a1-live-qwen2.5-coder-0.5b-llamacpp": "."}),
]
