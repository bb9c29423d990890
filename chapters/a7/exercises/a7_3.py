"""Checker functions for lesson A7·3's exercises. Each returns a short Chinese verdict.

    check_capped_requests(limits_recording, guess)   # exercise 1: how many requests the capped child sends
"""
from __future__ import annotations

from prefixlab.presenting.answers import ask, is_int, more_or_less

from chapters.a7.figures.delegation import requests, totals


def check_capped_requests(recording, guess) -> str:
    """A7-3: the requests of the child that runs under the round limit (session variant ``capped``)."""
    if not is_int(guess):
        return ask(guess)
    answer = totals(requests(recording, "capped"), roles=("child",))["requests"]
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。Limits 在每次请求之前检查:已经走了几轮?"
                "到了上限,这一次就不发了,会话里追加一条 stopped 记录。")
    return (f"对:{answer} 个。第 {answer + 1} 个请求发出之前,loop.py 的 Limits 说轮数到了;子 agent 停下,"
            "父 agent 收到的是一句“停下了、没有报告”的说明。")
