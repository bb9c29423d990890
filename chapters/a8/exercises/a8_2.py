"""Checker functions for lesson A8·2's exercises. Each returns a short Chinese verdict.

    check_compacted_day(guess)   # exercise 1: what a tally of the context misses on a compacted day (A6·1's run)
    check_fork_leaf(guess)       # exercise 2: the same tally at a fork's leaf of the session tree
"""
from __future__ import annotations

from prefixlab.paths import RECORDINGS
from prefixlab.presenting.answers import ask, is_int, more_or_less
from prefixlab.recording.format import load

from chapters.a8.figures.ledger import split

COMPACTED = ("t11-smollm2-llamacpp", "message-day1")
FORK = ("t13-forks-smollm2-llamacpp", "fork-r5")


def missed(recording: str, session: str) -> int:
    return split(load(RECORDINGS / recording), session).missed


def check_compacted_day(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = missed(*COMPACTED)
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。数一数这一天里答案已经不在上下文里的请求:被压缩掉的那几轮,"
                "加上写摘要的那个请求。")
    return f"对:{answer:,} 个输入 token,都在会话文件里,当前上下文里一个也看不到。"


def check_fork_leaf(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = missed(*FORK)
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。站在 fork-r5 的叶子上,上下文里只有第 1…5 轮和这个 fork 自己的请求;"
                "第一天的第 6…10 轮和另外 8 个 fork 都在别的分支上。")
    return (f"对:{answer:,}。同一个文件、同一份账本,站在哪个叶子上数,当前上下文的合计就不同;"
            "账本的合计不变。")
