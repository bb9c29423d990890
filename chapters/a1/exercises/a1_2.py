"""Checker functions for lesson A1·2's exercises. Each returns a short Chinese verdict.

Every exercise asks for a number the page does not show: the answer is computed from the
recording (never stored) and printed only once the reader's answer is right.

    check_cached(rec, round_no, guess)          # exercise 1: cached_tokens of one round of ``long``
    check_evaluated_between(rec, 11, 20, guess) # exercise 2: tokens the server evaluated in rounds 11..20
"""
from __future__ import annotations

from prefixlab.presenting.answers import ask, is_int, more_or_less

SESSION = "long"


def _calls(recording):
    return {c.round: c for c in recording.session_calls(SESSION)}


def _round_problem(calls, round_no) -> str | None:
    if not is_int(round_no) or not 2 <= round_no <= max(calls):
        return f"轮数只能是 2 到 {max(calls)} 之间的整数,收到 {round_no!r}"
    return None


def check_cached(recording, round_no, guess) -> str:
    """What the server read from its cache in round ``round_no`` of the 20-round session."""
    calls = _calls(recording)
    if problem := _round_problem(calls, round_no):
        return problem
    if not is_int(guess):
        return ask(guess)
    right = calls[round_no].cached_tokens
    if guess != right:
        return (f"不对,{more_or_less(guess, right)}。槽位里留着的是哪一个请求?它和这一轮的请求从哪里开始不同?"
                "(可以用代码读录制:rec.session_calls(\"long\") 里每个请求的 prompt_tokens。)")
    return (f"对:{right:,}。这正是第 {round_no - 1} 轮的整个 prompt:这一轮的请求以上一轮的请求开头,"
            "服务器把它整段读取,只算新接上的那两条消息。")


def check_evaluated_between(recording, first, last, guess) -> str:
    """Tokens the server evaluated (prompt - cached) over rounds ``first``..``last`` of the 20-round session."""
    calls = _calls(recording)
    for round_no in (first, last):
        if problem := _round_problem(calls, round_no):
            return problem
    if first > last:
        return f"第一轮({first})要不晚于最后一轮({last})"
    if not is_int(guess):
        return ask(guess)
    right = sum(calls[k].prompt_tokens - calls[k].cached_tokens for k in range(first, last + 1))
    if guess != right:
        return (f"不对,{more_or_less(guess, right)}。把每一轮重算的写成\"这一轮的 prompt 减上一轮的 prompt\","
                "再把它们加起来,中间的项会怎样?")
    return (f"对:{right:,},正好是第 {last} 轮的 prompt 减去第 {first - 1} 轮的 prompt。每一轮只算新接上的部分,"
            "加起来就是这几轮里 prompt 长出来的那一截:缓存开着时,服务器算的 token 数随轮数线性增长,发出去的却是二次的。")
