"""How sure a pass rate is: Wilson intervals, pass@k, the spread across seeds, two designs compared.

    wilson(7, 10)                      # Interval(low=0.3968, high=0.8922): 95 % for 7 passes of 10 runs
    pass_at_k(n=10, c=3, k=5)          # 0.9167: the chance that at least one of 5 runs drawn from the 10 passes
    summary(runs)                      # Summary: runs, passed, rate, interval
    by_task(runs)                      # {task: Summary}: the spread of the pass rate across a task's seeds
    by_seed(runs)                      # {seed: Summary}: the whole task set's pass rate, seed by seed
    compare(runs_a, runs_b)            # Comparison: both intervals, Fisher's exact p, a verdict

**Wilson's interval** (Wilson 1927; Brown, Cai & DasGupta 2001, "Interval Estimation for a Binomial
Proportion", Statistical Science 16(2)) for c passes in n runs, z = 1.96 for 95 %::

    centre = (p + z²/2n) / (1 + z²/n),   half = z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²),   p = c/n

Unlike p ± 1.96·sqrt(p(1-p)/n) it never leaves [0, 1] and is not zero-width at 0 or n passes: 0 of 10 is
[0, 0.28], not "exactly 0".

**pass@k**, the unbiased estimator of Chen et al. 2021, "Evaluating Large Language Models Trained on Code"
(arXiv 2107.03374, section 2.1): with n runs of a task of which c pass, the chance that at least one of
k runs drawn from them passes is ``1 - C(n-c, k) / C(n, k)``; averaged over tasks. Computed exactly with
integers (``math.comb``), not with the paper's floating-point product.

**Comparing two designs.** Overlapping 95 % intervals: "no evidence of a difference" (a conservative
rule: intervals that overlap a little can still hide a real difference, so this never claims one
wrongly often). As a second opinion, Fisher's exact test on the 2×2 table (passed / failed × design A /
design B), two-sided: the probability, if both designs had the same pass rate, of a table at least as
unlikely as the one measured, with every margin fixed. It assumes the runs are independent draws;
runs of the same task are not quite that (some tasks are harder), so read it as a rough check.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

from .rows import Run

Z95 = 1.959963984540054  # the 97.5 % point of the standard normal: a two-sided 95 % interval


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def overlaps(self, other: "Interval") -> bool:
        return self.low <= other.high and other.low <= self.high

    def pct(self, digits: int = 0) -> str:
        """"[12 %, 48 %]"-style text."""
        return f"[{100 * self.low:.{digits}f}%, {100 * self.high:.{digits}f}%]"


def wilson(passed: int, runs: int, z: float = Z95) -> Interval:
    """Wilson's score interval for ``passed`` successes in ``runs`` trials (95 % by default)."""
    for name, value in (("passed", passed), ("runs", runs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} should be a whole number >= 0, got {value!r}")
    if runs == 0:
        raise ValueError("no runs: a pass rate of 0 runs has no interval (run the task at least once)")
    if passed > runs:
        raise ValueError(f"passed ({passed}) cannot be more than runs ({runs})")
    p, n, z2 = passed / runs, runs, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # at 0 or n passes one end is exactly 0 or 1; floating point would give 1e-17
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == runs else min(1.0, centre + half)
    return Interval(low, high)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al.'s unbiased pass@k for one task: ``1 - C(n-c, k) / C(n, k)`` (exact)."""
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} should be a whole number >= 0, got {value!r}")
    if c > n:
        raise ValueError(f"c ({c} passing runs) cannot be more than n ({n} runs)")
    if not 1 <= k <= n:
        raise ValueError(f"k should be between 1 and n = {n} runs, got {k} (pass@k needs at least k runs)")
    if n - c < k:  # every draw of k runs holds a passing one
        return 1.0
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


@dataclass(frozen=True)
class Summary:
    runs: int
    passed: int

    @property
    def rate(self) -> float:
        return self.passed / self.runs

    @property
    def interval(self) -> Interval:
        return wilson(self.passed, self.runs)


def summary(runs: Iterable[Run]) -> Summary:
    runs = list(runs)
    if not runs:
        raise ValueError("no runs selected: pick at least one task, design and seed")
    return Summary(len(runs), sum(r.passed for r in runs))


def _group(runs: Iterable[Run], key) -> dict:
    groups: dict = {}
    for r in runs:
        groups.setdefault(key(r), []).append(r)
    return {k: summary(v) for k, v in sorted(groups.items())}


def by_task(runs: Iterable[Run]) -> dict[str, Summary]:
    """Each task's pass rate across its seeds (one design's runs: pass a design's runs only)."""
    return _group(runs, lambda r: r.task)


def by_seed(runs: Iterable[Run]) -> dict[int, Summary]:
    """The task set's pass rate for each seed: how much one sweep over the tasks moves from seed to seed."""
    return _group(runs, lambda r: r.seed)


def by_design(runs: Iterable[Run]) -> dict[str, Summary]:
    return _group(runs, lambda r: r.design)


def mean_pass_at_k(runs: Iterable[Run], k: int) -> float:
    """pass@k averaged over the tasks (each task's n = its runs, c = its passes); one design's runs."""
    tasks = by_task(runs)
    if not tasks:
        raise ValueError("no runs selected")
    short = {t: s.runs for t, s in tasks.items() if s.runs < k}
    if short:
        task, n = sorted(short.items())[0]
        raise ValueError(f"pass@{k} needs at least {k} runs of every task; {task!r} has {n}")
    return sum(pass_at_k(s.runs, s.passed, k) for s in tasks.values()) / len(tasks)


def fisher_exact(a_pass: int, a_runs: int, b_pass: int, b_runs: int) -> float:
    """Two-sided p of Fisher's exact test on [[a_pass, a_fail], [b_pass, b_fail]] (exact fractions)."""
    if a_runs <= 0 or b_runs <= 0:
        raise ValueError("each design needs at least one run")
    if not (0 <= a_pass <= a_runs and 0 <= b_pass <= b_runs):
        raise ValueError("passes must be between 0 and the number of runs")
    total_pass, n = a_pass + b_pass, a_runs + b_runs
    denominator = math.comb(n, total_pass)

    def prob(x: int) -> Fraction:  # P(design A has x of the passes), margins fixed (hypergeometric)
        return Fraction(math.comb(a_runs, x) * math.comb(b_runs, total_pass - x), denominator)

    observed = prob(a_pass)
    lo, hi = max(0, total_pass - b_runs), min(a_runs, total_pass)
    p = sum((q for q in (prob(x) for x in range(lo, hi + 1)) if q <= observed), Fraction(0))
    return float(min(p, Fraction(1)))


NO_EVIDENCE = "no evidence of a difference"
DIFFERENCE = "a difference"


@dataclass(frozen=True)
class Comparison:
    a: Summary
    b: Summary
    p_value: float

    @property
    def overlap(self) -> bool:
        return self.a.interval.overlaps(self.b.interval)

    @property
    def verdict(self) -> str:
        """NO_EVIDENCE when the 95 % intervals overlap, else DIFFERENCE."""
        return NO_EVIDENCE if self.overlap else DIFFERENCE

    @property
    def verdict_zh(self) -> str:
        return "没有证据说两者不同(区间重叠)" if self.overlap else "有差别(区间不重叠)"


def compare(runs_a: Iterable[Run], runs_b: Iterable[Run]) -> Comparison:
    """Two designs' runs (or any two groups): their intervals, whether they overlap, Fisher's p."""
    a, b = summary(runs_a), summary(runs_b)
    return Comparison(a, b, fisher_exact(a.passed, a.runs, b.passed, b.runs))
