"""Chapter A8's experiments: what its lessons record against a real server.

The list ``EXPERIMENTS`` registers them for ``python -m prefixlab record NAME`` (``prefixlab.recording.experiments``
finds this package at run time).

``whole_task``   A8·3  one complete task: skills, memory, a compaction and a child; the same task under a budget   record a8-3
``waterfall``    A8·3  the same task under five designs, from each chapter's naive choice to all its fixes    record a8-3-waterfall
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a8-3", "a8", "A8·3 一整单:技能、记忆、压缩和子 agent 都用上的完整任务,再加一遍预算上限(约 3 分钟)",
               f"{__name__}.whole_task", {"a8-3-whole-task-smollm2-llamacpp": "."}),
    Experiment("a8-3-waterfall", "a8", "A8·3 瀑布图:同一个任务,从各章朴素的做法开始,依次换上 A4、A5、A6、A7 的修法(约 5 分钟)",
               f"{__name__}.waterfall", {"a8-3-waterfall-smollm2-llamacpp": "."}),
]
