"""Chapter A9's experiments: what each lesson measures.

``evaluation``    A9·1  the task set (data/a9/tasks) under text and constrained calls, seeds 1..N, and the oracle   record a9
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a9", "a9", "A9 任务集上的评测:live 模型 × 两种设计 × 多个 seed,加上 oracle(分批录,每批 --minutes 分钟)",
               f"{__name__}.evaluation", {"a9-eval-qwen2.5-coder-0.5b-llamacpp": "."}),
]
