"""Chapter A3's experiments: what each lesson records against a real server.

A3·1 measures commands and paths on the reader's own machine (``chapters.a3.escapes``), no server involved.

``approval_policies``   A3·2  one task, asked in the chat and under five approval policies   record a3-2
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a3-2", "a3", "A3·2 审批:同一个任务,在对话里问和五种审批策略(2 核上约 5-10 分钟)", f"{__name__}.approval_policies",
               {"a3-2-approval-smollm2-llamacpp": "."}),
]
