"""Checker functions for lesson A9·2's exercises. Each returns a short Chinese verdict.

    check_runs_for_rare(guess)        # exercise 1: runs, all failing, before the interval's top end is below 5 %
    check_sweep_range(guess)          # exercise 2: the largest minus the smallest one-sweep pass count across seeds
"""
from __future__ import annotations

from prefixlab.eval import stats
from prefixlab.presenting.answers import ask, is_int, more_or_less

from chapters.a9.figures import passrate

RARE = 0.05   # "rarely": the top end of the 95 % interval below 5 %


def runs_for_rare(limit: float = RARE) -> int:
    """The fewest runs n such that 0 passes of n has a 95 % Wilson interval whose top end is below ``limit``."""
    n = 1
    while stats.wilson(0, n).high >= limit:
        n += 1
    return n


def sweep_design() -> str:
    """The live design exercise 2 asks about: the one with the most passes (ties: the harness's order)."""
    return max(passrate.live_designs(), key=lambda d: passrate.summary(d).passed)


def sweep_range() -> int:
    """Largest minus smallest passes of one sweep, over the design's seeds, on the tasks every seed ran."""
    d = sweep_design()
    runs = passrate.of(d)
    by_seed: dict[int, set] = {}
    for r in runs:
        by_seed.setdefault(r.seed, set()).add(r.task)
    common = set.intersection(*by_seed.values())
    counts = [sum(r.passed for r in runs if r.seed == s and r.task in common) for s in by_seed]
    return max(counts) - min(counts)


def check_runs_for_rare(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = runs_for_rare()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。0 次通过时 Wilson 区间的上端是 z²/(n+z²)(z = 1.96);"
                "用 stats.wilson(0, n).high 试几个 n,找出第一个低于 0.05 的。")
    return (f"对:{answer} 次。一次也没过,也要跑这么多次,才能说它的通过率\"多半不到 5%\";"
            "10 次全失败只能说不到 28% 左右。")


def check_sweep_range(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = sweep_range()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。用 passrate.seed_rates(\"{sweep_design()}\") 取出每个种子那一遍的"
                "通过个数(只数每个种子都跑过的那些任务),最大的减最小的。")
    return (f"对:差 {answer} 个任务。同一个设计、同一个任务集,只是换了种子;一遍扫下来的数就会上下跳这么多,"
            "两种设计只各扫一遍,差这么多也说明不了谁更好。")
