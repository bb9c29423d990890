"""Checker functions for lesson A8·3's exercises. Each returns a short Chinese verdict.

    check_budget_tokens(guess)   # exercise 1: the tokens the budget run had used when it stopped
"""
from __future__ import annotations

from prefixlab.presenting import bill
from prefixlab.presenting.answers import ASK, is_int, more_or_less

from chapters.a8.figures.whole import recording


def budget_tokens() -> int:
    rec = recording()
    (root,) = bill.bill(rec.path / rec.session_info("budget")["file"]).roots
    return root.total.prompt + root.total.output


def check_budget_tokens(guess) -> str:
    if not is_int(guess):
        return ASK
    answer = budget_tokens()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。把会话 budget 里每个回答的 prompt_tokens 和 completion_tokens 加起来"
                "(停下之前发出的请求都算)。")
    return f"对:{answer:,}。预算在下一次请求之前检查:已用的数一到预算就不再发,所以最后一个请求可能让它越过预算一点。"
