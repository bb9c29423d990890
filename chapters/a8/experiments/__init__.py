"""Chapter A8's experiments: what its lessons record against a real server.

``EXPERIMENTS`` registers them for ``python -m prefixlab record NAME`` (``prefixlab.recording.experiments``
finds this package at run time).

``whole_task``   A8·3  one complete task: skills, memory, a compaction and a child; the same task under a budget   record a8-3
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a8-3", "a8", "A8·3 一整单:技能、记忆、压缩和子 agent 都用上的完整任务,再加一遍预算上限(约 3 分钟)",
               f"{__name__}.whole_task", {"a8-3-whole-task-smollm2-llamacpp": "."}),
]
