"""Checker functions for lesson A9·3's exercises. Each returns a short Chinese verdict.

    check_break_even(guess)     # exercise 1: the pass rate (whole %) at which the pricier-per-success design
                                #             would cost the same per success as the other, per-run price held fixed
    check_reads_per_solved(guess)  # exercise 2: Kimi's predicted cache reads per solved task, for one design
"""
from __future__ import annotations

import math

from prefixlab.presenting.answers import ASK, is_int, more_or_less

from chapters.a9.figures import passrate, price

RULE = "anthropic"   # exercise 1 prices at Anthropic's table
READS_RULE = "kimi"  # exercise 2 counts Kimi's predicted reads


def ranked() -> tuple[str, str] | None:
    """(dearer per success, cheaper per success) of the live designs at RULE; None when one solved nothing."""
    live = passrate.live_designs()
    per = {d: price.get(d, RULE).per_solved_usd for d in live}
    if len(live) < 2 or any(v is None for v in per.values()):
        return None
    dear, cheap = sorted(live, key=lambda d: -per[d])[:2]
    return dear, cheap


def break_even() -> int | None:
    """The smallest whole-percent pass rate at which ``dear``'s success costs no more than ``cheap``'s."""
    pair = ranked()
    if pair is None:
        return None
    dear, cheap = (price.get(d, RULE) for d in pair)
    return math.ceil(100 * dear.per_run_usd / cheap.per_solved_usd)


def reads_design() -> str:
    """The live design that solved the most (exercise 2's design)."""
    return max(passrate.live_designs(), key=lambda d: passrate.summary(d).passed)


def reads_per_solved() -> int | None:
    x = price.get(reads_design(), READS_RULE).per_solved_read
    return None if x is None else round(x)


def check_break_even(guess) -> str:
    if not is_int(guess):
        return ASK
    answer = break_even()
    if answer is None:
        return "这份评测里有一种设计一个任务也没解决:它每次成功的价格是\"未定义\",算不出打平的点。"
    dear, cheap = ranked()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。每次成功的价格 = 每次运行的价格 / 通过率;"
                f"让{passrate.label(dear)}每次运行的价格除以通过率,等于{passrate.label(cheap)}每个解决的任务的价格,解出通过率,"
                "再向上取整到百分之一。")
    return (f"对:{answer}%。每次运行的价格不变,{passrate.label(dear)}的通过率要到这么高,每次成功才不比"
            f"{passrate.label(cheap)}贵;便宜不便宜,要连通过率一起看。")


def check_reads_per_solved(guess) -> str:
    if not is_int(guess):
        return ASK
    answer = reads_per_solved()
    if answer is None:
        return "这个设计一个任务也没解决:每个解决的任务读取多少是\"未定义\"。"
    if abs(guess - answer) > 1:
        return (f"不对,{more_or_less(guess, answer)}。price.get(\"{reads_design()}\", \"kimi\") 的 read_tokens 是"
                "所有运行按 Kimi 的规则读取的 token 合计,除以解决的任务数(四舍五入到整数)。")
    return (f"对:约 {answer:,} 个。失败的运行读取的 token 也算在解决的任务头上:"
            "每个解决的任务背后,是所有运行的账。")
