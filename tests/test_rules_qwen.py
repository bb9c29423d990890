"""Qwen (百炼) implicit and explicit cache, from help.aliyun.com/model-studio/context-cache."""
import pytest

from prefixlab.cache import pricing
from prefixlab.cache.rules import Block, Request, qwen

from rule_helpers import seq

A, B = seq(0, 1500), seq(5000, 200)


def test_implicit_minimum_is_1024_on_the_newer_page_and_256_on_the_older():
    short = seq(0, 600)
    reqs = [Request(short), Request(short + B, t=1)]
    assert qwen.predict(reqs)[1].read == 0
    assert qwen.predict(reqs, implicit_min_tokens=256)[1].read == 600


def test_implicit_is_longest_prefix_without_a_write_fee():
    p = qwen.predict([Request(A), Request(A + B, t=1)])
    assert p[1].read == 1500 and all(x.write == 0 for x in p) and p[1].rule == "Qwen"


def blocks(n_first, n_total):
    return (Block("system", "system", 0, n_first), Block("user#1", "message", n_first, n_total))


def test_explicit_marker_creates_then_hits_within_five_minutes():
    r1 = Request(A + B, blocks=blocks(1500, 1700))
    r2 = Request(A + seq(9000, 50), t=100, blocks=blocks(1500, 1550))
    p = qwen.predict([r1, r2], breakpoints=("system",))
    assert (p[0].read, p[0].write, p[0].write_5m, p[0].rule) == (0, 1500, 1500, "Qwen explicit")
    assert p[1].read == 1500 and p[1].write == 0
    late = Request(A + seq(9000, 50), t=301, blocks=blocks(1500, 1550))
    assert qwen.predict([r1, late], breakpoints=("system",))[1].read == 0


def test_a_hit_resets_the_five_minutes():
    r = [Request(A + B, t=t, blocks=blocks(1500, 1700)) for t in (0, 250, 500)]
    assert qwen.predict(r, breakpoints=("system",))[2].read == 1500


def test_explicit_minimum_and_marker_limit():
    small = Request(seq(0, 900), blocks=blocks(800, 900))
    p = qwen.predict([small], breakpoints=("system",))
    assert p[0].write == 0 and "minimum" in p[0].notes[0]
    with pytest.raises(ValueError, match="at most 4"):
        qwen.QwenConfig(breakpoints=("a", "b", "c", "d", "e"))


def test_lookback_is_twenty_blocks():
    def many(n, t):
        bs = tuple(Block(f"user#{i}", "message", 100 * i, 100 * (i + 1)) for i in range(n))
        return Request(seq(0, 100 * n), t=t, blocks=bs)
    first = many(15, 0)   # marker on user#14: entry ends at 1500
    near = many(34, 1)    # marker on user#33 looks back to user#14
    far = many(35, 1)     # marker on user#34 looks back only to user#15
    assert qwen.predict([first, near], mode="explicit")[1].read == 1500
    assert qwen.predict([first, far], mode="explicit")[1].read == 0


def test_explicit_prices_use_the_explicit_rates():
    r1 = Request(A + B, blocks=blocks(1500, 1700))
    p = qwen.predict([r1, Request(A + B, t=1, blocks=blocks(1500, 1700))], breakpoints=("system",))
    cost = pricing.total_cost(p, "qwen3-max")
    assert cost.term("write_5m").multiplier == pytest.approx(1.25)
    assert cost.term("read").multiplier == pytest.approx(0.1)
    implicit = pricing.total_cost(qwen.predict([Request(A), Request(A + B, t=1)]), "qwen3-max")
    assert implicit.term("read").multiplier == pytest.approx(0.2)
