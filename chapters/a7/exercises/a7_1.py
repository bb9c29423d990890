"""Checker functions for lesson A7·1's exercises. Each returns a short Chinese verdict.

    check_compactions(explore_recording, guess)   # exercise 1: how often the agent that reads alone compacts
    check_peak_share(explore_recording, guess)    # exercise 2: the parent's longest request, in % of alone's
"""
from __future__ import annotations

from prefixlab.presenting.answers import ask, is_int, more_or_less

from chapters.a7.figures.delegation import requests, totals

SHARE_TOLERANCE = 5  # percentage points


def check_compactions(recording, guess) -> str:
    """A7-1: how many summary requests the agent that reads the 30 plugins itself sends."""
    if not is_int(guess):
        return ask(guess)
    answer = totals(requests(recording, "alone"))["summaries"]
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。从第一个请求的长度起,每读一个插件大约涨多少?"
                "涨过预算就压一次,压完回到多长?再涨过预算又是一次。")
    return f"对:{answer} 次。每次压缩都多一个写摘要的请求,压缩之前读到的插件只剩摘要里的几句。"


def peak_share(recording) -> int:
    """The delegating parent's longest request as a whole percentage of the lone agent's longest."""
    alone = totals(requests(recording, "alone"))["peak"]
    parent = totals(requests(recording, "delegate"), roles=("parent",))["peak"]
    return round(100 * parent / alone)


def check_peak_share(recording, guess) -> str:
    """A7-1: the parent's longest request as a percentage of the lone agent's (within SHARE_TOLERANCE points)."""
    if not is_int(guess):
        return ask(guess)
    answer = peak_share(recording)
    if abs(guess - answer) > SHARE_TOLERANCE:
        return (f"不对,{more_or_less(guess, answer)}。父 agent 的请求里有什么:系统提示(多了一个工具的定义)、"
                "任务、它自己的前几轮,再加上一份几行的报告;自己读的 agent 最长的请求贴着压缩阈值。")
    return (f"对:约 {answer}%(相差 {SHARE_TOLERANCE} 个百分点以内都算对)。父 agent 的上下文里只有报告,"
            "30 个文件的原文都留在子 agent 的会话文件里。")
