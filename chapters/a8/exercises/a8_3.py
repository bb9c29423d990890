"""Checker functions for lesson A8·3's exercises. Each returns a short Chinese verdict.

    check_budget_tokens(guess)   # exercise 1: the tokens the budget run had used when it stopped
    check_biggest_fix(guess)     # exercise 2: which chapter's fix saved the most recomputed tokens
    check_fork_step(guess)       # exercise 3: what the A7 step (fresh -> fork) changed the recomputed tokens by
"""
from __future__ import annotations

from prefixlab.presenting import bill
from prefixlab.presenting.answers import ASK, ask, is_int, more_or_less

from chapters.a8.figures import waterfall
from chapters.a8.figures.whole import recording

FORK_TOLERANCE = 100  # tokens: exercise 3 asks for an estimate


def budget_tokens() -> int:
    rec = recording()
    (root,) = bill.bill(rec.path / rec.session_info("budget")["file"]).roots
    return root.total.prompt + root.total.output


def check_budget_tokens(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = budget_tokens()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。把会话 budget 里每个回答的 prompt_tokens 和 completion_tokens 加起来"
                "(停下之前发出的请求都算)。")
    return f"对:{answer:,}。预算在下一次请求之前检查:已用的数一到预算就不再发,所以最后一个请求可能让它越过预算一点。"


def fix_steps() -> dict[str, int]:
    """Each chapter's fix -> what it changed the recomputed tokens by (negative: saved)."""
    ds = waterfall.designs()
    return {after.fix: after.recomputed - before.recomputed for before, after in zip(ds, ds[1:])}


def check_biggest_fix(guess) -> str:
    steps = fix_steps()
    if not isinstance(guess, str) or not guess.strip():
        return ASK
    key = guess.strip().lower().replace("·", "")
    if key not in steps:
        return f"写成 {', '.join(repr(k) for k in steps)} 中的一个。"
    best = min(steps, key=steps.get)
    if key != best:
        return ("不对。想一想哪一种打断处出现得最勤:每分钟一次、每次压缩一次,还是只在写记忆的那一轮?"
                "打断处越靠前、出现得越勤,重算得越多。")
    return (f"对:{best.upper()},省下 {-steps[best]:,} 个重算的 token。时间那一行在最前面,分钟一变整个请求几乎都要重算;"
            "别的修法只管各自那一处打断。")


def check_fork_step(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = fix_steps()["a7"]
    if abs(guess - answer) > FORK_TOLERANCE:
        return (f"不对,{more_or_less(guess, answer)}。分叉的子 agent 一出发就带着父 agent 快满的上下文:"
                "它第二个请求之前会怎样?那之后槽位里留下的是什么?")
    return (f"对(差 {FORK_TOLERANCE} 以内):{answer:+,}。分叉的子 agent 自己就超过了压缩阈值,多写一次摘要;"
            "它压缩之后的请求又把槽位里父 agent 的前缀覆盖了,父 agent 回来照样重算。")
