"""Checker functions for lesson A5·1's exercises. Each returns a short Chinese verdict.

    check_after_refusal(overflow_recording, guess)   # exercise 1: what the request after a refusal reads
    check_threshold(tool, window, guess)             # exercise 2: where pi / Codex start compacting
"""
from __future__ import annotations

from prefixlab.presenting.answers import ask, is_int, more_or_less

# The cited defaults (data/citations.yml: pi-compaction-settings; Codex in the lesson's prose).
PI_RESERVE_TOKENS = 16384
CODEX_SHARE = (9, 10)  # 90 % of the context window, rounded down as integer arithmetic does


def check_after_refusal(recording, guess) -> str:
    """A5-1: the fork that follows the refused request: how many tokens the server read from its slot."""
    if not is_int(guess):
        return ask(guess)
    retry = recording.session_calls("retry")[0]
    served = [c for c in recording.session_calls("overflow") if not c.refused]
    if retry.cached_tokens != guess:
        refused = recording.session_calls("overflow")[-1].prompt_tokens
        hint = ("被拒收的请求从没进过槽位:服务器在算之前就拒绝了它。槽位里留着的,是最后一个被接受的请求。"
                if guess >= refused else
                "重发的请求和最后一个被接受的请求,从哪里开始不同?")
        return f"不对,{more_or_less(guess, retry.cached_tokens)}。{hint}"
    return (f"对:{retry.cached_tokens:,}。正好是最后一个被接受的请求的长度({served[-1].prompt_tokens:,} 个 token):"
            "被拒收的请求没有改动槽位,新请求在那份 prompt 后面接着写。")


def check_threshold(tool: str, window, guess) -> str:
    """The context size above which ``tool`` ("pi" or "codex") compacts, for a model with ``window`` tokens."""
    if tool not in ("pi", "codex"):
        return f"tool 只能是 \"pi\" 或 \"codex\",收到 {tool!r}"
    if not is_int(window) or window <= PI_RESERVE_TOKENS:
        return f"窗口要是大于 {PI_RESERVE_TOKENS:,} 的整数,收到 {window!r}"
    if not is_int(guess):
        return ask(guess)
    answer = window - PI_RESERVE_TOKENS if tool == "pi" else window * CODEX_SHARE[0] // CODEX_SHARE[1]
    if guess != answer:
        hint = ("pi 的条件是“上下文 > 窗口 − reserveTokens”,reserveTokens 的默认值在卡片里。" if tool == "pi" else
                "Codex 的默认值是窗口的九成,整数相乘再相除,向下取整。")
        return f"不对,{more_or_less(guess, answer)}。{hint}"
    spare = window - answer
    return (f"对:{answer:,}。超过它就压缩,给摘要请求的回答和下一轮留出 {spare:,} 个 token"
            + ("(固定的预留,与窗口大小无关)。" if tool == "pi" else "(窗口的一成,窗口越大留得越多)。"))
