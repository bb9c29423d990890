"""Checker functions for lesson A2·2's exercises. Each returns a short Chinese verdict.

    check_twenty_round_share(guess)   # exercise 1: fifteen tools over A1·2's twenty rounds: the block's share, ±3 points
    check_cached_block_cost(guess)    # exercise 2: that block's cost when cached (written once, read after), within 10 %
"""
from __future__ import annotations

from chapters.a2.figures.tool_sets import projection
from prefixlab.presenting.answers import ask, more_or_less


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_twenty_round_share(guess) -> str:
    if not _number(guess):
        return ask(guess, whole=False)
    row = projection()["sets"]["fifteen"]
    answer = row["share_percent"]
    if abs(guess - answer) > 3:
        return (f"不对,{more_or_less(guess, answer)}。工具块每个请求一样大,可历史一轮比一轮长:"
                "会话越长,工具块的占比越小还是越大?")
    return (f"对:约 {answer}%。{row['requests']} 个请求一共 {row['session_prompt_tokens']:,} 个 prompt token,"
            f"工具块占 {row['session_block_tokens']:,} 个。会话越长,历史越占大头,但工具块一个请求也不会少。")


def check_cached_block_cost(guess) -> str:
    if not _number(guess):
        return ask(guess, whole=False)
    row = projection()["sets"]["fifteen"]
    cost = row["cost"]
    answer = cost["cached"]
    if abs(guess - answer) > answer * 0.1:
        return (f"不对,{more_or_less(guess, answer)}(差了一成以上)。第一个请求按写入价付(基础价 × 写入倍数),"
                "之后每个请求按读取价付(基础价 × 读取倍数);价格是每百万 token。")
    return (f"对:约 {answer:.4f} 美元;不缓存时是 {cost['uncached']:.4f} 美元。工具块在前缀的最前面,"
            "只要它不变,缓存就替你省下大半;一变(增减一个工具),后面的一切都要重新写入。")
