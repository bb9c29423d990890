"""Checker functions for lesson A5·2's exercises. Each returns a short Chinese verdict.

    check_placeholder_round(recs, round_no, guess)   # exercise 1: a placeholder on --cache-reuse 256
    check_openai_round(rec, round_no, guess)         # exercise 2: the same request under OpenAI's rule
"""
from __future__ import annotations

from prefixlab.cache import calculator
from prefixlab.presenting.answers import ask, is_int, more_or_less



def _call(rec, round_no: int):
    return next((c for c in rec.session_calls("masking") if c.round == round_no), None)


def check_placeholder_round(recs: dict, round_no: int, guess) -> str:
    """With a placeholder instead of the first line, on --cache-reuse 256: what round ``round_no`` read."""
    call, first_line = _call(recs["placeholder-reuse256"], round_no), _call(recs["reuse256"], round_no)
    if call is None:
        return f"这个会话没有第 {round_no} 轮"
    if not is_int(guess):
        return ask(guess)
    if call.cached_tokens != guess:
        hint = ("占位符和原来那段输出从第一个字起就不一样。打断处之后,服务器要找的是“和槽位里某一段逐字相同、"
                "至少 256 个 token 长”的一段:占位符后面紧跟的内容,在槽位里的什么位置?")
        return f"不对,{more_or_less(guess, call.cached_tokens)}。{hint}"
    return (f"对:{call.cached_tokens:,}。留第一行时同一轮读取 {first_line.cached_tokens:,}。"
            "打断处之后,两种写法请求里的内容一样,差别在缓存能不能把它们对上号;这一课正文说了原因。")


def check_openai_round(rec, round_no: int, guess) -> str:
    """The masked session's request of round ``round_no`` under OpenAI's rule: what it would read."""
    rows = [r for r in calculator.analyze(rec, "openai") if r.round == round_no]
    if not rows:
        return f"这个会话没有第 {round_no} 轮"
    if not is_int(guess):
        return ask(guess)
    row = rows[0]
    if row.read != guess:
        hint = ("OpenAI 的缓存没有 --cache-reuse:打断处之后一律重算。打断处之前的部分,"
                "从 1,024 个 token 起按 128 个一档往下取整。")
        return f"不对,{more_or_less(guess, row.read)}。{hint}"
    return (f"对:{row.read:,}。打断处在第 {row.break_at:,} 个 token,"
            f"OpenAI 的规则只读取不超过它的最大一档,其余 {row.prompt_tokens - row.read:,} 个按原价重算。")
