"""Qwen (百炼) rule edges that ``benchmarks/mutate_rules.py`` found no other test checking.

Expected values follow help.aliyun.com/model-studio/context-cache as prefixlab/cache/rules/qwen.py's docstring
summarises it (implicit minimum 1,024 tokens on the newer page; explicit markers: at most 4, at least 1,024
tokens, 5 minutes reset on a hit) and the choices that docstring calls ours (the read capped below the
prompt's length; an entry gone once unused for its whole lifetime). Arithmetic in the comments. Mutants
left alive are equivalent: benchmarks/mutation_notes.yml says why.
"""
import pytest

from prefixlab.cache.rules import Block, Request, qwen

from rule_helpers import seq

A, B, C = seq(0, 1500), seq(5000, 200), seq(9000, 300)


def two(n_first, n_total):
    return (Block("system", "system", 0, n_first), Block("user#1", "message", n_first, n_total))


def test_settings_at_their_smallest_are_accepted():
    # at most 4 markers; minimums >= 1; lifetimes > 0
    assert len(qwen.QwenConfig(breakpoints=("a", "b", "c", "d")).breakpoints) == 4
    cfg = qwen.QwenConfig(implicit_min_tokens=1, explicit_min_tokens=1, explicit_ttl=1, implicit_ttl=1)
    assert (cfg.implicit_min_tokens, cfg.explicit_min_tokens, cfg.explicit_ttl, cfg.implicit_ttl) == (1, 1, 1, 1)


@pytest.mark.parametrize("bad", [dict(implicit_min_tokens=0), dict(explicit_min_tokens=0), dict(explicit_ttl=0),
                                 dict(implicit_ttl=0)])
def test_zero_minimums_and_lifetimes_are_refused(bad):
    with pytest.raises(ValueError):
        qwen.QwenConfig(**bad)


def test_implicit_prompt_of_exactly_the_minimum_is_stored_and_read():
    # 1,024 tokens are "at least 1,024": stored, then read whole by a longer prompt
    base = seq(0, 1024)
    assert qwen.predict([Request(base), Request(base + B, t=1)])[1].read == 1024


def test_implicit_resend_keeps_its_last_token():
    assert qwen.predict([Request(A), Request(A, t=1)])[1].read == 1499


def test_implicit_first_request_reads_nothing_even_with_a_minimum_of_one():
    assert qwen.predict([Request(A)], implicit_min_tokens=1)[0].read == 0


def test_implicit_names_the_request_that_stored_the_prompt_and_keeps_it_on_a_resend():
    # requests count from 0; re-storing the same prompt keeps its first origin
    p = qwen.predict([Request(C), Request(A, t=1), Request(A + B, t=2), Request(A, t=3), Request(A + B, t=4)])
    assert p[2].matched_entry == "implicit cache <- request 1"
    assert p[3].matched_entry == "implicit cache <- request 1"


def test_implicit_match_under_the_minimum_names_no_entry():
    # 600 shared tokens < 1,024: read 0 and no entry used
    p = qwen.predict([Request(A), Request(A[:600] + B, t=1)])[1]
    assert p.read == 0 and p.matched_entry is None


def test_implicit_lifetime_when_given():
    # stored at t=100, implicit_ttl=50: alive at t=149, gone at t=150
    alive = qwen.predict([Request(A, t=100), Request(A + B, t=149)], implicit_ttl=50)[1]
    gone = qwen.predict([Request(A, t=100), Request(A + B, t=150)], implicit_ttl=50)[1]
    assert (alive.read, gone.read) == (1500, 0)


def test_explicit_marker_of_exactly_the_minimum_writes():
    base = seq(0, 1024)
    r1 = Request(base + B, blocks=two(1024, 1224))
    r2 = Request(base + C, t=1, blocks=two(1024, 1324))
    p = qwen.predict([r1, r2], breakpoints=("system",))
    assert (p[0].write, p[1].read) == (1024, 1024)


def test_explicit_entry_gone_at_exactly_five_minutes():
    r1 = Request(A + B, blocks=two(1500, 1700))
    at = Request(A + C, t=300, blocks=two(1500, 1800))
    before = Request(A + C, t=299.5, blocks=two(1500, 1800))
    assert qwen.predict([r1, before], breakpoints=("system",))[1].read == 1500
    assert qwen.predict([r1, at], breakpoints=("system",))[1].read == 0


def test_explicit_resend_never_reads_the_whole_prompt():
    # the marker on the last block ends at the prompt's end; at least the last token is evaluated
    r = Request(A + B, blocks=two(1500, 1700))
    p = qwen.predict([r, Request(A + B, t=1, blocks=r.blocks)], breakpoints=("user#1",))[1]
    assert p.read < p.total


def test_explicit_entry_of_one_token_with_a_minimum_of_one():
    r1 = Request((1,) + B, blocks=two(1, 201))
    r2 = Request((1,) + C, t=1, blocks=two(1, 301))
    assert qwen.predict([r1, r2], breakpoints=("system",), explicit_min_tokens=1)[1].read == 1


def test_explicit_hit_without_a_new_write_has_no_note():
    r1 = Request(A + B, blocks=two(1500, 1700))
    r2 = Request(A + C, t=1, blocks=two(1500, 1800))
    p = qwen.predict([r1, r2], breakpoints=("system",))[1]
    assert (p.read, p.write, p.notes) == (1500, 0, ())


def test_unknown_markers_name_the_first():
    r = Request(A, blocks=two(1000, 1500))
    with pytest.raises(ValueError, match="unknown block 'x'"):
        qwen.predict([r], breakpoints=("x", "y"))


def test_explicit_names_the_request_that_wrote_the_entry():
    r0 = Request(C + B, blocks=two(300, 500))
    r1 = Request(A + B, t=1, blocks=two(1500, 1700))
    r2 = Request(A + C, t=2, blocks=two(1500, 1800))
    p = qwen.predict([r0, r1, r2], breakpoints=("system",), explicit_min_tokens=100)
    assert p[2].matched_entry == "explicit cache <- request 1"
