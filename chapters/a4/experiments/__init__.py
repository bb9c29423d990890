"""Chapter A4's experiments: what each lesson records against a real server.

``one_token``     A4·1  one token changed at position p, swept over the prompt   record a4-1
``volatile_top``  A4·2  a time-and-files block at the top, at the end, or the date only   record a4-2
``rewrite_history`` A4·3  one session as an append-only message list or re-rendered each round   record a4-3
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a4-1", "a4", "A4·1 前缀缓存从头讲:改一个 token(2 核上 5-15 分钟)", f"{__name__}.one_token",
               {"a4-1-one-token-smollm2-llamacpp": "."}),
    Experiment("a4-2", "a4", "A4·2 顶部放什么:会变的一块放在开头、末尾,或只留日期(繁忙的 2 核机器上 44 分钟)",
               f"{__name__}.volatile_top", {"a4-2-volatile-top-smollm2-llamacpp": "."}),
    Experiment("a4-3", "a4", "A4·3 改写历史:追加的消息列表,或每轮重新渲染的一段记录", f"{__name__}.rewrite_history",
               {"a4-3-rewrite-history-smollm2-llamacpp": "."}),
]
