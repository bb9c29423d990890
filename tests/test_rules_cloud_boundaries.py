"""The cloud cache rules at their documented edges: a prefix of exactly the minimum length and one
token either side, the 128-token steps, the breakpoint limits, and the TTLs at the instant they run out.

No recording can check these rules (no cloud API is called), so each edge is taken from the
documentation the rule module cites: OpenAI "starting at 1,024 tokens and increasing in 128-token
increments" (prefixlab/cache/rules/openai.py docstring), Anthropic's minimum cacheable length per
model, "at most 4 breakpoints", and the 5-minute / 1-hour TTLs refreshed on each hit
(prefixlab/cache/rules/anthropic.py docstring, stored copy idx:69611539940). Where the docs are
silent the module states its choice (an entry dies at exactly its TTL); these tests pin that choice.
Every expected number is worked out in the comment beside it, not taken from the rule's own code.
"""
import pytest

from prefixlab.cache.rules import Block, Request
from prefixlab.cache.rules.anthropic import CacheControlError
from prefixlab.cache.rules.anthropic import predict as anthropic
from prefixlab.cache.rules.openai import cached_tokens
from prefixlab.cache.rules.openai import predict as openai


def toks(seed: int, n: int) -> tuple[int, ...]:
    return tuple(range(seed * 100_000, seed * 100_000 + n))


# -- OpenAI: 1,024 tokens, then 128-token steps ----------------------------------------------------

@pytest.mark.parametrize("matched, cached", [
    (1023, 0),       # one under the minimum: nothing
    (1024, 1024),    # exactly the minimum
    (1025, 1024),    # one over: still the first step
    (1151, 1024),    # 1,024 + 127: the next step is not reached
    (1152, 1152),    # 1,024 + 128
    (1153, 1152),
])
def test_openai_rounding_at_the_minimum_and_the_first_step(matched, cached):
    assert cached_tokens(matched) == cached


def test_openai_stores_a_prompt_of_exactly_the_minimum():
    base = toks(1, 1024)
    first, longer = openai([Request(base, t=0), Request(base + toks(2, 10), t=1)])
    assert (first.read, longer.read) == (0, 1024)   # the 1,024-token prompt was stored and matched whole


def test_openai_does_not_store_a_prompt_one_token_under_the_minimum():
    base = toks(1, 1023)
    _, longer = openai([Request(base, t=0), Request(base + toks(2, 500), t=1)])
    assert longer.read == 0                         # nothing of 1,023 tokens was ever stored


def test_openai_a_prompt_one_over_the_minimum_resent_reads_the_minimum():
    base = toks(1, 1025)
    # resending it matches 1,025 tokens, capped at 1,024 (the last one is evaluated): exactly the minimum
    assert openai([Request(base, t=0), Request(base, t=1)])[1].read == 1024
    # an exact resend of a 1,024-token prompt matches 1,023 after the cap: under the minimum
    base = toks(1, 1024)
    assert openai([Request(base, t=0), Request(base, t=1)])[1].read == 0


def test_openai_idle_ttl_ends_at_exactly_300_seconds():
    base, nxt = toks(1, 2048), toks(2, 10)
    assert openai([Request(base, t=0), Request(base + nxt, t=299.5)])[1].read == 2048
    assert openai([Request(base, t=0), Request(base + nxt, t=300.0)])[1].read == 0


def test_openai_a_hit_restarts_the_idle_timer():
    base = toks(1, 2048)
    # hits at 200 s and 450 s: the second is 250 s after the last use (alive), 450 s after the write
    rows = openai([Request(base, t=0), Request(base + toks(2, 10), t=200), Request(base + toks(3, 10), t=450)])
    assert [r.read for r in rows] == [0, 2048, 2048]


def test_openai_max_age_ends_an_entry_however_often_it_is_hit():
    # the same 2,048-token prompt resent every 250 s: each resend hits (2,047 after the cap -> 1,920)
    # and keeps the entry's first write time, so the entry dies 3,600 s after that write
    base = toks(1, 2048)
    resends = [Request(base, t=float(t)) for t in range(0, 3501, 250)]
    assert [r.read for r in openai(resends)][1:] == [1920] * 14
    assert openai(resends + [Request(base, t=3599.0)])[-1].read == 1920
    assert openai(resends + [Request(base, t=3600.0)])[-1].read == 0


def test_openai_24h_retention_idle_edge_is_1800_seconds():
    base, nxt = toks(1, 2048), toks(2, 10)
    assert openai([Request(base, t=0), Request(base + nxt, t=1799.0)], retention="24h")[1].read == 2048
    assert openai([Request(base, t=0), Request(base + nxt, t=1800.0)], retention="24h")[1].read == 0


# -- Anthropic: the minimum at each breakpoint, 4 breakpoints, TTLs --------------------------------

def build(parts, t=0.0):
    """parts: (name, kind, tokens); blocks tile the prompt in this order."""
    tokens, blocks = (), []
    for name, kind, content in parts:
        blocks.append(Block(name, kind, len(tokens), len(tokens) + len(content)))
        tokens += tuple(content)
    return Request(tokens, t=t, blocks=tuple(blocks))


SONNET = dict(model="claude-sonnet-4-5")    # minimum cacheable prompt 1,024 tokens (the docs' table)


@pytest.mark.parametrize("size, written", [(1023, 0), (1024, 1024), (1025, 1025)])
def test_anthropic_writes_a_prefix_of_exactly_the_minimum(size, written):
    r = build([("system", "system", toks(1, size))])
    first, again = anthropic([r, Request(r.tokens, t=1, blocks=r.blocks)], **SONNET)
    assert first.write == written
    assert again.read == written                # read back only what was written


def test_anthropic_minimum_is_checked_per_breakpoint_prefix_at_the_edge():
    # explicit breakpoint on a 1,023-token system prompt: not cached; the automatic one on the last
    # block (1,023 + 1 = 1,024 tokens) is exactly the minimum: cached
    r = build([("system", "system", toks(1, 1023)), ("u1", "message", toks(2, 1))])
    (p,) = anthropic([r], breakpoints=["system"], **SONNET)
    assert p.write == 1024
    assert any("prefix 1023 tokens < minimum 1024" in n for n in p.notes)


def test_anthropic_breakpoint_limits():
    names = [f"b{i}" for i in range(5)]
    r = build([(n, "message", toks(i + 1, 300)) for i, n in enumerate(names)])
    (p,) = anthropic([r], breakpoints=names[:4], automatic=None, min_tokens=0)   # 4 explicit: allowed
    assert p.write == 1200                                                       # up to b3: 4 x 300
    with pytest.raises(CacheControlError):
        anthropic([r], breakpoints=names, automatic=None, min_tokens=0)          # 5 explicit
    with pytest.raises(CacheControlError):
        anthropic([r], breakpoints=names[:4], automatic="5m", min_tokens=0)      # 4 + automatic
    (p,) = anthropic([r], breakpoints=names[:3], automatic="5m", min_tokens=0)   # 3 + automatic = 4
    assert p.write == 1500


@pytest.mark.parametrize("ttl, seconds", [("5m", 300.0), ("1h", 3600.0)])
def test_anthropic_entry_dies_at_exactly_its_ttl(ttl, seconds):
    r = build([("system", "system", toks(1, 2000))])
    again = lambda t: Request(r.tokens, t=t, blocks=r.blocks)  # noqa: E731
    alive = anthropic([r, again(seconds - 0.5)], automatic=ttl, **SONNET)[1]
    gone = anthropic([r, again(seconds)], automatic=ttl, **SONNET)[1]
    assert (alive.read, gone.read) == (2000, 0)


def test_anthropic_a_hit_found_by_lookback_refreshes_that_entry():
    # request 0 writes at block a; request 1 (t=200) reads a by looking back from its own last block
    # and refreshes a until 500 s; request 2 (t=450) changes block c: only a can match, and is alive
    # because of the refresh (written at 0, it would have died at 300 s)
    a, b, c = toks(1, 1200), toks(2, 50), toks(3, 50)
    r0 = build([("a", "system", a)], t=0)
    r1 = build([("a", "system", a), ("b", "message", b)], t=200)
    r2 = build([("a", "system", a), ("c", "message", c)], t=450)
    rows = anthropic([r0, r1, r2], **SONNET)
    assert [p.read for p in rows] == [0, 1200, 1200]


def test_openai_24h_retention_max_age_is_one_day():
    base = toks(1, 2048)
    resends = [Request(base, t=float(t)) for t in range(0, 86_001, 1500)]   # idle 1,500 s < 1,800 s
    assert openai(resends + [Request(base, t=86_399.0)], retention="24h")[-1].read == 1920
    assert openai(resends + [Request(base, t=86_400.0)], retention="24h")[-1].read == 0


def test_openai_config_accepts_the_smallest_values_and_refuses_zero():
    from prefixlab.cache.rules.openai import OpenAIConfig

    OpenAIConfig(min_tokens=1, step=1, idle_ttl=0.5, max_age=0.5)
    for bad in (dict(min_tokens=0), dict(step=0), dict(idle_ttl=0.0), dict(max_age=0.0)):
        with pytest.raises(ValueError):
            OpenAIConfig(**bad)
