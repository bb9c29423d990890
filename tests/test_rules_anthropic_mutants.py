"""Anthropic rule details that ``benchmarks/mutate_rules.py`` found no other test checking.

Each expected value comes from the rule as the docs state it (platform.claude.com prompt-caching, stored
copy idx:69611539940, summarised in the docstring of prefixlab/cache/rules/anthropic.py) or, where the docs
are silent, from the choice that docstring states; the arithmetic is in the comments, never taken from
running the rule. The mutants left alive are equivalent; benchmarks/mutation_notes.yml says why.
"""
import pytest

from prefixlab.cache.rules import Block, Request
from prefixlab.cache.rules.anthropic import (AnthropicCache, AnthropicConfig, Breakpoint, api_blocks,
                                             min_cacheable_tokens, model_settings, predict)


def build(parts, t=0.0):
    """parts: (name, kind, n_tokens, seed[, part]); blocks tile the prompt in the given order."""
    tokens, blocks = (), []
    for name, kind, n, seed, *part in parts:
        blocks.append(Block(name, kind, len(tokens), len(tokens) + n, part[0] if part else ""))
        tokens += tuple(range(seed * 10_000, seed * 10_000 + n))
    return Request(tokens, t=t, blocks=tuple(blocks))


NO_MIN = dict(min_tokens=0)


def test_api_order_is_tools_then_system_then_messages():
    # "the prefix is tools -> system -> messages": a message given first still goes last
    r = build([("u", "message", 10, 1), ("sys", "system", 10, 2), ("tools", "tools", 10, 3)])
    assert [ab.block.name for ab in api_blocks(r)] == ["tools", "sys", "u"]


def test_a_dated_snapshot_id_has_its_models_minimum():
    # data/prices/anthropic.yml: claude-haiku-4-5-20251001 is the snapshot the alias claude-haiku-4-5 names;
    # anthropic-minimums.yml (2026-12): claude-haiku-4-5 4,096
    assert min_cacheable_tokens("claude-haiku-4-5-20251001") == 4096


def test_unknown_model_lists_the_known_ones_alphabetically():
    with pytest.raises(ValueError, match=r"known models: claude-fable-5, claude-fable-5-1, claude-haiku-3-5,"):
        min_cacheable_tokens("claude-nonexistent-9")


def test_model_settings_names_the_older_table_only_when_needed():
    # claude-haiku-4-5 is in the newest table; claude-sonnet-3-7 only in the 2026-02 one
    assert model_settings("claude-haiku-4-5") == {"model": "claude-haiku-4-5"}
    assert model_settings("claude-sonnet-3-7") == {"model": "claude-sonnet-3-7", "min_table": "2026-02"}


def test_replace_keeps_a_minimum_that_was_given():
    # a given min_tokens is kept; only a minimum that came from the table follows a new model
    assert AnthropicConfig().replace(min_tokens=500).min_tokens == 500
    assert AnthropicConfig(min_tokens=7).replace(automatic=None).min_tokens == 7
    assert AnthropicConfig().replace(model="claude-sonnet-4-6").min_tokens == 1024


def test_automatic_skips_an_empty_last_block():
    # "empty blocks cannot be cached": automatic caching puts its breakpoint on the last *non-empty*
    # block, so the entry is the 2,000-token system prefix, which the next turn reads
    r1 = build([("sys", "system", 2000, 1), ("u1", "message", 0, 2)])
    r2 = build([("sys", "system", 2000, 1), ("u2", "message", 100, 3)], t=1)
    assert predict([r1, r2], **NO_MIN)[1].read == 2000


def run_with_an_entry_at(block):
    """Write one entry at ``block`` of sys(1000) tu1 tu2 tu3 (a tool_use run of 3 x 100), then send a
    request whose last tool_use block differs, with automatic caching only."""
    parts = [("sys", "system", 1000, 1), ("tu1", "message", 100, 2, "tool_use"),
             ("tu2", "message", 100, 3, "tool_use")]
    cache = AnthropicCache(AnthropicConfig(automatic=None, breakpoints=(Breakpoint(block),), **NO_MIN))
    cache.step(build(parts + [("tu3", "message", 100, 4, "tool_use")]))
    cache.config = AnthropicConfig(automatic="5m", **NO_MIN)
    return cache.step(build(parts + [("tu3", "message", 100, 5, "tool_use")], t=1))


@pytest.mark.parametrize("block", ["tu1", "tu2"])
def test_inside_a_tool_use_run_only_its_last_block_is_looked_at(block):
    # the docstring's choice: a run counts as one lookback position, the run's last block; an entry at
    # the run's first or middle block is not found, and nothing earlier (sys) was written: read 0
    assert run_with_an_entry_at(block).read == 0


def test_an_entry_at_a_runs_last_block_is_found():
    parts = [("sys", "system", 1000, 1), ("tu1", "message", 100, 2, "tool_use"),
             ("tu2", "message", 100, 3, "tool_use")]
    cache = AnthropicCache(AnthropicConfig(automatic=None, breakpoints=(Breakpoint("tu2"),), **NO_MIN))
    cache.step(build(parts + [("u", "message", 100, 4)]))
    cache.config = AnthropicConfig(automatic="5m", **NO_MIN)
    assert cache.step(build(parts + [("u", "message", 100, 5)], t=1)).read == 1200


def test_a_breakpoint_exactly_at_the_minimum_gets_no_note():
    # 1,024 tokens on a 1,024 minimum is cached ("fewer than this number" is not), so no "not cached" note
    p = predict([build([("sys", "system", 1024, 1)])], model="claude-sonnet-4-6")[0]
    assert p.write == 1024 and not any("not cached" in n for n in p.notes)


def test_the_1h_write_ends_at_the_deepest_1h_breakpoint():
    # A = 0 (first request), B = deepest 1 h breakpoint = 1,500, C = 1,500: 1 h write B - A, 5 m write 0
    r = build([("sys", "system", 1000, 1), ("doc", "message", 500, 2)])
    p = predict([r], automatic=None, breakpoints=[("sys", "1h"), ("doc", "1h")], **NO_MIN)[0]
    assert (p.write_1h, p.write_5m) == (1500, 0)


def test_the_1h_write_starts_at_the_hit():
    # request 2 hits sys (A = 1,000; its doc changed), B = doc = 1,400: 1 h write = B - A = 400
    bps = dict(automatic=None, breakpoints=[("sys", "1h"), ("doc", "1h")], **NO_MIN)
    r1 = build([("sys", "system", 1000, 1), ("doc", "message", 500, 2)])
    r2 = build([("sys", "system", 1000, 1), ("doc", "message", 400, 3)], t=1)
    p = predict([r1, r2], **bps)[1]
    assert (p.read, p.write_1h, p.write_5m) == (1000, 400, 0)


def test_a_breakpoint_inside_the_read_prefix_refreshes_its_entry():
    # the docstring's choice: a breakpoint on an entry that is still alive re-writes it free of charge,
    # so its 5 minutes start again. t=0 writes sys and u1; t=200 reads u1 (the deepest hit) and passes
    # the breakpoint on sys (refreshed to 500 s); at t=400 sys is still alive, read 2,000
    cfg = dict(breakpoints=["sys"], **NO_MIN)
    r1 = build([("sys", "system", 2000, 1), ("u1", "message", 100, 2)])
    r2 = build([("sys", "system", 2000, 1), ("u1", "message", 100, 2), ("u2", "message", 100, 3)], t=200)
    r3 = build([("sys", "system", 2000, 1), ("u9", "message", 100, 9)], t=400)
    assert predict([r1, r2, r3], **cfg)[2].read == 2000


def test_a_hit_names_the_request_that_wrote_it():
    # requests are counted from 0: the third request reads what "request 1" wrote
    r = [build([("sys", "system", 100, 1)]), build([("sys", "system", 200, 2)], t=1),
         build([("sys", "system", 200, 2), ("u", "message", 50, 3)], t=2)]
    p = predict(r, **NO_MIN)
    assert p[2].matched_entry.startswith("request 1 ")


def test_a_miss_breaks_at_the_first_block():
    r = build([("sys", "system", 1000, 1), ("u", "message", 100, 2)])
    p = predict([r], **NO_MIN)[0]
    assert (p.break_at, p.break_block) == (0, "sys")


def test_a_breakpoint_never_looks_forward():
    # each request sets its own cache_control; a breakpoint checks its own block and walks *back*.
    # Request 1 writes only the whole 2,000-token prefix (automatic, on y); request 2, the same content
    # with one breakpoint on x, finds no entry at x or before it: read 0, though y's entry is alive
    r = build([("x", "system", 1000, 1), ("y", "message", 1000, 2)])
    cache = AnthropicCache(AnthropicConfig(**NO_MIN))
    cache.step(r)
    cache.config = AnthropicConfig(automatic=None, breakpoints=(Breakpoint("x"),), **NO_MIN)
    assert cache.step(Request(r.tokens, t=1, blocks=r.blocks)).read == 0
