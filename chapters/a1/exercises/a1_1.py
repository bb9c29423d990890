"""Checker functions for lesson A1·1's exercises. Each returns a short Chinese verdict.

Every exercise asks for a number the page does not show: the answer is computed from the
recording (never stored) and printed only once the reader's answer is right. A checker never
raises on a wrong or missing answer: it says what to think about next, without the number.

    check_messages(rec, round_no, guess)   # exercise 1: messages in the loop's request of round N
    check_last_round_growth(rec, guess)    # exercise 2: how much longer the answer round's prompt is
"""
from __future__ import annotations

from prefixlab.presenting.answers import ask, is_int, more_or_less

SESSION = "loop"


def _calls(recording):
    return {c.round: c for c in recording.session_calls(SESSION)}


def check_messages(recording, round_no, guess) -> str:
    """How many chat messages (system included) the loop's request of round ``round_no`` carries."""
    calls = _calls(recording)
    if not is_int(round_no) or round_no not in calls:
        return f"轮数只能是 {min(calls)} 到 {max(calls)} 之间的整数,收到 {round_no!r}"
    if not is_int(guess):
        return ask(guess)
    right = len(calls[round_no].request["messages"])
    if guess != right:
        return (f"不对,{more_or_less(guess, right)}。数一数:system 一条、任务一条;之前的每一轮各留下几条消息?"
                "(模型要了一个工具,工具的结果也是一条消息。)")
    return (f"对:{right} 条。system 和任务 2 条,之前的 {round_no - 1} 轮每轮留下两条"
            "(模型的工具调用、工具的结果),全部原样再发一遍。")


def check_last_round_growth(recording, guess) -> str:
    """The answer round's prompt minus the round before it: the tokens the last tool result and its call added."""
    if not is_int(guess):
        return ask(guess)
    calls = _calls(recording)
    last = max(calls)
    right = calls[last].prompt_tokens - calls[last - 1].prompt_tokens
    if guess != right:
        return (f"不对,{more_or_less(guess, right)}。最后一轮比前一轮多出来的,是前一轮模型的那次调用和它的结果;"
                "两轮的 prompt 长度在上面的表里。")
    return (f"对:多了 {right} 个 token。这就是第 {last - 1} 轮的工具调用和工具结果(外加模板给每条消息加的标记):"
            "一轮只添一点,但添上去的再也不会从请求里消失。")
