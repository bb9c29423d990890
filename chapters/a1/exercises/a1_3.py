"""Checker functions for lesson A1·3's exercises. Each returns a short Chinese verdict.

The answers are computed from the recording (never stored) and printed only once the reader's
answer is right.

    check_budget_requests(rec, guess)   # exercise 1: requests the runaway run sent before its token budget stopped it
    check_first_limit(rec, guess)       # exercise 2: with both limits set, which one stops the run
"""
from __future__ import annotations

from miniagent.loop import Limits
from miniagent.session import tokens_used
from prefixlab.presenting.answers import ASK, ask, is_int, more_or_less
from prefixlab.recording.policy import load_script

from chapters.a1.paths import A1_SCRIPT

RUNS = load_script(A1_SCRIPT)["runaway"]["runs"]


def check_budget_requests(recording, guess) -> str:
    """How many requests the runaway run with a token budget sent before it stopped."""
    if not is_int(guess):
        return ask(guess)
    right = len(recording.session_calls("runaway-budget"))
    budget = RUNS["runaway-budget"]["max_tokens"]
    if guess != right:
        return (f"不对,{more_or_less(guess, right)}。两次停不下来的运行发出的请求一模一样;把上表每一轮用掉的 token"
                f"(prompt + 生成的 1 个)从第 1 轮累加,加到第几轮时第一次达到 {budget:,}?"
                "检查在发请求之前做,所以越过预算的那一个请求已经发出去了。")
    return (f"对:{right} 个请求。第 {right} 个请求之后累计用量第一次达到 {budget:,},"
            f"循环在发第 {right + 1} 个之前停下,写下一条 stopped 记录。")


def first_limit(recording) -> str:
    """The reason a run with both recorded limits would stop, replayed on the recorded usage."""
    both = Limits(max_rounds=RUNS["runaway-rounds"]["max_rounds"], max_tokens=RUNS["runaway-budget"]["max_tokens"])
    tokens = 0
    for rounds, call in enumerate(recording.session_calls("runaway-rounds")):
        if reason := both.reason_to_stop(rounds, tokens, 0):
            return "max_tokens" if reason.startswith("token") else "max_rounds"
        tokens += tokens_used(call.response)
    return "max_rounds"


def check_first_limit(recording, guess) -> str:
    """Limits(max_rounds=..., max_tokens=...) with both recorded values: which one stops the run first."""
    if guess not in ("max_rounds", "max_tokens"):
        return "答案写成字符串 \"max_rounds\" 或 \"max_tokens\"。" if guess is not None else ASK
    right = first_limit(recording)
    if guess != right:
        return "不对。对照练习 1 的答案和轮数上限:哪一个先到?"
    return f"对:{right} 先到。两道闸同时设着时,谁先到谁说了算;stopped 记录里的 reason 写的就是它。"
