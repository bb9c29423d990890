"""Chapter A7's experiments: what each lesson records against a real server.

One module per lesson (the map below); ``EXPERIMENTS`` registers them for ``python -m prefixlab record NAME``
(``prefixlab.recording.experiments`` finds this package at run time).

``delegation``      the recorder they share: a parent agent with miniagent's spawn_agent tool, its children
                    registered as sessions

``explore``         A7·1  read 30 files alone (compacting) or hand them to an explorer child   record a7-1
``fresh_or_fork``   A7·2  a fresh or a forked child; one slot, host cache, two slots          record a7-2
``limits``          A7·3  a vague brief unlimited, the same child capped, a clear brief     record a7-3
``review``          A7·4  self-review in the same session or a fresh reviewer child         record a7-4-review
``review_live``     A7·4  the live model reviews a planted bug, itself or fresh (a check)   record a7-4-review-live
``parallel``        A7·4  two children at once or in turn on -np 2; a child past its slot   record a7-4-parallel
"""
from prefixlab.recording.experiments import Experiment

_A7_2 = ("a7-2-child-one-slot", "a7-2-child-host-cache", "a7-2-child-two-slots")

EXPERIMENTS = [
    Experiment("a7-1", "a7", "A7·1 什么时候分出去:自己读 30 个文件还是交给子 agent(约 3 分钟)",
               f"{__name__}.explore", {"a7-1-explore-smollm2-llamacpp": "."}),
    Experiment("a7-2", "a7", "A7·2 全新还是分叉:一个槽位、主机缓存、两个槽位(约 2 分钟)",
               f"{__name__}.fresh_or_fork", {name: name for name in _A7_2}),
    Experiment("a7-3", "a7", "A7·3 任务书与上限:含糊的任务书不设上限、设上限、写清楚(约 4 分钟)",
               f"{__name__}.limits", {"a7-3-limits-smollm2-llamacpp": "."}),
    Experiment("a7-4-review", "a7", "A7·4 评审:同一会话里自己评审,还是交给全新的评审子 agent(约 2 分钟)",
               f"{__name__}.review", {"a7-4-review-smollm2-llamacpp": "."}),
    Experiment("a7-4-review-live", "a7", "A7·4 小检查:实时模型评审一个埋好的错误(分批录,每批 --minutes 分钟)",
               f"{__name__}.review_live", {"a7-4-review-live-qwen2.5-coder-0.5b-llamacpp": "."}),
]
EXPERIMENTS.append(
    Experiment("a7-4-parallel", "a7", "A7·4 两个子 agent 同时跑:-np 2 的两个槽位,一个槽位装不下的子 agent(约 3 分钟)",
               f"{__name__}.parallel", {name: name for name in ("a7-4-parallel-two-slots", "a7-4-parallel-one-slot")}))
