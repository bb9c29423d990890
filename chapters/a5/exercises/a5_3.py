"""Checker functions for lesson A5·3's exercises. Each returns a short Chinese verdict.

    check_rule_tokens(rec, guess)    # exercise 1: the rule's tokens in the first summary request
    check_truncated(rows, guess)     # exercise 2: structured summaries stopped at max_tokens
"""
from __future__ import annotations

from prefixlab.presenting.answers import ask, is_int, more_or_less
from prefixlab.presenting.evolution import evaluate

from chapters.a5.figures.layers import NAME

SESSION = "free-01"  # exercise 1: the first run's first summary request


def rule_tokens(rec) -> int:
    """Tokens of the recording's rule in the first summary request of SESSION (the calculator's count)."""
    return evaluate({"recording": rec.path.name if rec is not None else NAME, "session": SESSION, "at": "first",
                     "measure": "rule_tokens"})


def check_rule_tokens(rec, guess) -> str:
    """How many tokens the rule takes in the first summary request."""
    if not is_int(guess):
        return ask(guess)
    answer = rule_tokens(rec)
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。Qwen 的分词器对中文大多是一两个字一个 token;"
                "标点算在句子里,不算在规矩里。")
    return (f"对:{answer} 个 token。逐字保留一条规矩几乎不花什么;丢掉它的代价,是 agent 可能去改测试文件。")


def check_truncated(rows, guess) -> str:
    """How many structured summaries (all depths) the server stopped at max_tokens."""
    if not is_int(guess):
        return ask(guess)
    cut = [r for r in rows if r.variant == "structured" and r.truncated]
    total = sum(1 for r in rows if r.variant == "structured")
    if guess != len(cut):
        return (f"不对,{more_or_less(guess, len(cut))}。看 finish_reason:写到 max_tokens 被截断的是 \"length\"。"
                "分节的提示要模型写四节,写得越全越容易碰到上限。")
    return (f"对:{total} 份里 {len(cut)} 份被截断。规矩一节排在最前面,截掉的只会是后面几节;"
            "如果规矩排在最后,截断会先把它截掉。")
