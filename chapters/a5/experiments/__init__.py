"""Chapter A5's experiments: what each lesson records against a real server.

One module per lesson (the map below); ``EXPERIMENTS`` registers them for ``python -m prefixlab record NAME``
(``prefixlab.recording.experiments`` finds this package at run time).

``context_limit``         A5·1  a prompt over the server's context: refused, the slot keeps its tokens  record a5-1
``tool_output_masking``   A5·2  old tool outputs cut (0/256), not cut, or a placeholder                 record a5-2
``compaction_triggers``   A5·1  one task compacted never, every N messages, at the window less a reserve  record a5-1-triggers
``summary_call``          A5·4  the summary call starting like the agent's prompt (offering its tools)  record a5-4
``layered_summaries``     A5·3  the live model's summaries, 1-3 deep: does the rule survive?            record a5-3
"""
from prefixlab.recording.experiments import Experiment

_A5_2 = ("a5-2-masking-reuse0-smollm2-llamacpp", "a5-2-masking-reuse256-smollm2-llamacpp",
         "a5-2-nomask-reuse0-smollm2-llamacpp", "a5-2-placeholder-reuse256-smollm2-llamacpp")

EXPERIMENTS = [
    Experiment("a5-1", "a5", "A5·1 提示词超出服务器的上下文(约 1 分钟)", f"{__name__}.context_limit",
               {"a5-1-overflow-smollm2-llamacpp": "."}),
    Experiment("a5-2", "a5", "A5·2 遮掉旧的工具输出:--cache-reuse 0 与 256,不遮与占位符(约 10 分钟)",
               f"{__name__}.tool_output_masking", {name: name for name in _A5_2}),
    Experiment("a5-1-triggers", "a5", "A5·1 什么时候压:从不、每 N 条消息、窗口减预留(约 3 分钟)",
               f"{__name__}.compaction_triggers", {"a5-1-triggers-smollm2-llamacpp": "."}),
    Experiment("a5-4", "a5", "A5·4 摘要请求沿用 agent 的前缀(约 2 分钟)",
               f"{__name__}.summary_call", {"a5-4-summary-call-smollm2-llamacpp": "."}),
    Experiment("a5-3", "a5", "A5·3 摘要的摘要:规矩还在吗(live 模型写摘要;分批录,每批 --minutes 分钟)",
               f"{__name__}.layered_summaries", {"a5-3-layers-qwen2.5-coder-0.5b-llamacpp": "."}),
]
