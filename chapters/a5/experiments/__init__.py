"""Chapter A5's experiments: what each lesson records against a real server.

One module per lesson (the map below); ``EXPERIMENTS`` registers them for ``python -m prefixlab record NAME``
(``prefixlab.recording.experiments`` finds this package at run time).

``context_limit``         A5·1  a prompt over the server's context: refused, the slot keeps its tokens  record a5-1
``tool_output_masking``   A5·2  old tool outputs cut, ``--cache-reuse 0`` and ``256``                   record a5-2
"""
from prefixlab.recording.experiments import Experiment

_A5_2 = ("a5-2-masking-reuse0-smollm2-llamacpp", "a5-2-masking-reuse256-smollm2-llamacpp")

EXPERIMENTS = [
    Experiment("a5-1", "a5", "A5·1 提示词超出服务器的上下文(约 1 分钟)", f"{__name__}.context_limit",
               {"a5-1-overflow-smollm2-llamacpp": "."}),
    Experiment("a5-2", "a5", "A5·2 遮掉旧的工具输出:--cache-reuse 0 与 256(约 5 分钟)",
               f"{__name__}.tool_output_masking", {name: name for name in _A5_2}),
]
