"""Chapter A1's experiments: what each lesson records against a real server.

``loop``   A1·1–A1·3  one task: a single request, the loop, 20 rounds (cache on / off), runaway   record a1
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a1", "a1", "A1 一个循环:一次请求、循环、20 轮(缓存开/关)、停不下来(2 核上 5-10 分钟)",
               f"{__name__}.loop", {"a1-loop-smollm2-llamacpp": "."}),
]
