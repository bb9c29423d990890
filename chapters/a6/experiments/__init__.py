"""Chapter A6's experiments: what each lesson records against a real server.

One module per lesson (the map below); ``EXPERIMENTS`` registers them for ``python -m prefixlab record NAME``
(``prefixlab.recording.experiments`` finds this package at run time). The recordings keep the
experiment names they were made with (T10 ... T14, the manifests' ``experiment``).

``instruction_files``     A6·1  T11  where a human rule lives              record a6-1 (record_t11)
``memory_timing``         A6·2  T10  when the agent's notes reach the prompt  record a6-2 (record_t10)
``skills``                A6·3  T12  skills inline or an index               record a6-3 (record_t12)
``session_tree``          A6·4  T13  the session is a tree                   record a6-4 (record_t13)
``memory_vs_retrieval``   A6·R  T14  the whole memory file or what matches   record a6-r (record_t14)
"""
from prefixlab.recording.experiments import Experiment

_T13 = ("t13-forks-smollm2-llamacpp", "t13-switch-one-slot", "t13-switch-host-cache", "t13-switch-two-slots",
        "t13-switch-two-slots-lru")

EXPERIMENTS = [
    Experiment("a6-1", "a6", "A6·1 规矩放在哪里(实验 T11,约 6 分钟)", f"{__name__}.instruction_files",
               {"t11-smollm2-llamacpp": "."}, alias="record_t11"),
    Experiment("a6-2", "a6", "A6·2 记忆何时进入提示词(实验 T10,约 5 分钟)", f"{__name__}.memory_timing",
               {"t10-smollm2-llamacpp": "."}, alias="record_t10"),
    Experiment("a6-3", "a6", "A6·3 技能:全文还是索引(实验 T12,2 核上 10-20 分钟)", f"{__name__}.skills",
               {"t12-smollm2-llamacpp": "."}, alias="record_t12"),
    Experiment("a6-4", "a6", "A6·4 会话是一棵树(实验 T13,约 10 分钟)", f"{__name__}.session_tree",
               {name: name for name in _T13}, alias="record_t13"),
    Experiment("a6-r", "a6", "A6·R 整份记忆还是只取匹配的(实验 T14,约 8 分钟)", f"{__name__}.memory_vs_retrieval",
               {"t14-smollm2-llamacpp": "."}, alias="record_t14"),
]
