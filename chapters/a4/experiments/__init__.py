"""Chapter A4's experiments: what each lesson records against a real server.

``one_token``   A4·1  one token changed at position p, swept over the prompt   record a4-1
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a4-1", "a4", "A4·1 前缀缓存从头讲:改一个 token(2 核上 5-15 分钟)", f"{__name__}.one_token",
               {"a4-1-one-token-smollm2-llamacpp": "."}),
]
