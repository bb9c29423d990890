"""Checker functions for lesson A4·2's exercises. Each returns a short Chinese verdict.

The page's figure shows day 1; the exercises ask about requests it leaves out (day 2) and about a
cloud rule's view of day 1, so no part of the page prints their answers. Every answer is computed
from the recording when the checker runs, and shown only once the reader's answer is right.

    check_overnight(rec, "date-only", guess)   # exercise 1: the first request of day 2
    check_same_minute(rec, guess)               # exercise 2: clock-top, day 2, round 3
    check_anthropic_end(rec, guess)             # exercise 3: clock-end, day 1, round 3, Anthropic's rule
"""
from __future__ import annotations

from prefixlab.cache import calculator
from prefixlab.presenting.answers import ask, is_int, more_or_less

from chapters.a4.figures.volatile_top import ANTHROPIC_MODEL, SHAPE_LABELS, SHAPES, session_id

SAME_MINUTE = ("clock-top", 2, 3)      # exercise 2: same minute as the round before, but a file was edited
ANTHROPIC_END = ("clock-end", 1, 3)    # exercise 3: the minute changed; the block is at the end


def _row(recording, shape: str, day: int, round_no: int, rule: str = "llamacpp", **config):
    sid = session_id(shape, day)
    return next(r for r in calculator.analyze(recording, rule, sessions=sid, **config) if r.round == round_no)


def check_overnight(recording, shape: str, guess) -> str:
    """Day 2's first request of ``shape``: what the server read (the slot still holds day 1's last prompt)."""
    if shape not in SHAPES:
        return f"形状只能是 {', '.join(SHAPES)} 之一,收到 {shape!r}"
    if not is_int(guess):
        return ask(guess)
    row = _row(recording, shape, 2, 1)
    if guess != row.measured:
        hint = ("一夜之间,这一块里哪一行变了?它在 prompt 的什么位置?它前面的内容第二天还一样吗?"
                if guess < row.measured else
                "第二天的第一个请求和第一天最后一个请求,从哪里开始不同?那之后,哪怕是同样的工具定义,也要重算。")
        return f"不对,{more_or_less(guess, row.measured)}。{hint}"
    return (f"对:{row.measured:,}(prompt 共 {row.prompt_tokens:,} 个)。{SHAPE_LABELS[shape]}这一组,"
            f"一夜之间变的是块里的日期,打断处就在那一行;它之前的 {row.measured:,} 个 token 第二天原样读取,"
            "之后的工具定义和新任务全部重算。")


def check_same_minute(recording, guess) -> str:
    """Clock-top, day 2, round 3: sent in the same minute as round 2, after round 2 edited a file."""
    if not is_int(guess):
        return ask(guess)
    shape, day, round_no = SAME_MINUTE
    row = _row(recording, shape, day, round_no)
    if guess != row.measured:
        hint = ("这一轮和上一轮在同一分钟里发出,时间那一行没变。可上一轮的工具调用做了什么?"
                "顶部那一块里,除了时间还有什么?" if guess > row.measured else
                "时间没变:打断处不在时间那一行,往后找一找。")
        return f"不对,{more_or_less(guess, row.measured)}。{hint}"
    return (f"对:{row.measured:,}。时间还是同一分钟,可上一轮改了 units/convert.py,文件列表里它的字节数变了;"
            f"打断处就在那一行,之后的 {row.prompt_tokens - row.measured:,} 个 token 全部重算。"
            "「只精确到分钟」挡不住别的会变的内容。")


def check_anthropic_end(recording, guess) -> str:
    """Clock-end, day 1, round 3 (a new minute) under Anthropic's rule (automatic caching)."""
    if not is_int(guess):
        return ask(guess)
    shape, day, round_no = ANTHROPIC_END
    row = _row(recording, shape, day, round_no, "anthropic", model=ANTHROPIC_MODEL)
    local = _row(recording, shape, day, round_no)
    if guess != row.read:
        hint = ("Anthropic 拼前缀的顺序是工具、system、消息;只开自动缓存时,条目只写在每个请求的最后一块上。"
                "system 里有一个字变了,之后每一块的累计哈希还和上一次一样吗?")
        return f"不对,{more_or_less(guess, row.read)}。{hint}"
    return (f"对:{row.read:,}。在 llama.cpp 上这一轮读取 {local.measured:,} 个(打断在 system prompt 末尾);"
            "在 Anthropic 上,条目的键是到最后一块为止的累计哈希,system 里任何一处变了,之后每一块的键都变,"
            "放在 system 的开头还是末尾没有区别。只有整天不变的内容(只留日期)才保得住。")
