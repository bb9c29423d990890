"""Checker function for lesson A1·L's exercise. It returns a short Chinese verdict.

The answer is computed from the live recording (never stored) and printed only once the reader's
answer is right.

    check_cut_off_rounds(rec, guess)   # rounds whose reply the server cut off at the generation limit
"""
from __future__ import annotations

from prefixlab.presenting.answers import ask, is_int, more_or_less

SESSION = "better-prompt"


def _finish(call) -> str:
    return call.response["choices"][0]["finish_reason"]


def check_cut_off_rounds(recording, guess) -> str:
    """How many rounds of the live run ended with ``finish_reason: length`` (cut off at ``max_tokens``)."""
    if not is_int(guess):
        return ask(guess)
    calls = recording.session_calls(SESSION)
    cut = [c for c in calls if _finish(c) == "length"]
    if guess != len(cut):
        return (f"不对,{more_or_less(guess, len(cut))}。看表里\"模型做了什么\"那一列:哪几轮的调用次数一模一样?"
                "一个自己停下的回答,调用次数由模型决定;一个写到生成上限被截断的回答,停在哪里由上限决定。")
    limit = cut[0].request["max_tokens"]
    last = calls[-1]
    return (f"对:{len(cut)} 轮(第 {cut[0].round}–{cut[-1].round} 轮),每一轮都生成了 {limit} 个 token,"
            f"正好是请求里的 max_tokens,所以每轮恰好写完同样几次调用。第 {last.round} 轮只生成了 "
            f"{last.response['usage']['completion_tokens']} 个 token,finish_reason 是 {_finish(last)}:"
            "模型自己停下,写的却不是能解析的调用。")
