"""Checker functions for lesson A5·3's exercises. Each returns a short Chinese verdict.

    check_verbatim(cells, guess)     # exercise 1: structured summaries holding the rule word for word, 2 deep
    check_truncated(rows, guess)     # exercise 2: structured summaries stopped at max_tokens
"""
from __future__ import annotations

from prefixlab.presenting.answers import ASK, is_int, more_or_less

from chapters.a5.figures.layers import share

DEPTH = 2  # exercise 1 asks about the second summary (the map shows the first and the third)


def check_verbatim(cells, guess) -> str:
    """How many of the structured runs' second summaries hold the rule word for word."""
    if not is_int(guess):
        return ASK
    cell = share(cells, "structured", DEPTH)
    if guess != cell.verbatim:
        return (f"不对,{more_or_less(guess, cell.verbatim)}。表里数的是“逐字或换了说法”;逐字只算一字不差地写出规矩的那些。"
                "提示要求照抄,小模型常常译成英文或改写。")
    return (f"对:{cell.runs} 次里 {cell.verbatim} 次逐字。换了说法但意思还在的另有 {cell.in_summary - cell.verbatim} 次;"
            "能逐字搜到的规矩,才能被程序找到和核对(A6·1 的表就是逐字查的)。")


def check_truncated(rows, guess) -> str:
    """How many structured summaries (all depths) the server stopped at max_tokens."""
    if not is_int(guess):
        return ASK
    cut = [r for r in rows if r.variant == "structured" and r.truncated]
    total = sum(1 for r in rows if r.variant == "structured")
    if guess != len(cut):
        return (f"不对,{more_or_less(guess, len(cut))}。看 finish_reason:写到 max_tokens 被截断的是 \"length\"。"
                "分节的提示要模型写四节,写得越全越容易碰到上限。")
    kept = sum(1 for r in cut if r.in_summary is not None)
    return (f"对:{total} 份里 {len(cut)} 份被截断,其中 {kept} 份的规矩还在。规矩一节排在最前面,"
            "截掉的是后面的几节;如果规矩排在最后,截断就会先把它截掉。")
