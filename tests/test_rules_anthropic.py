"""Anthropic prompt-caching rules on hand-built block sequences."""
import pytest

from prefixlab.cache.rules import Block, Request
from prefixlab.cache.rules.anthropic import (AnthropicCache, AnthropicConfig, Breakpoint, CacheControlError,
                                       explicit, min_cacheable_tokens, predict)


def build(parts, t=0.0):
    """parts: (name, kind, tokens) or (name, kind, tokens, part). Returns a Request with tiled blocks."""
    tokens, blocks = (), []
    for spec in parts:
        name, kind, toks = spec[:3]
        part = spec[3] if len(spec) > 3 else ""
        blocks.append(Block(name, kind, len(tokens), len(tokens) + len(toks), part))
        tokens += tuple(toks)
    return Request(tokens, t=t, blocks=tuple(blocks))


def toks(seed, n):
    return tuple(range(seed * 10000, seed * 10000 + n))


def conversation(n_blocks, size=100, t=0.0, parts=None):
    """A growing conversation: block i has the same content in every request."""
    return build([(f"b{i + 1}", "message", toks(i + 1, size)) + ((parts(i + 1),) if parts else ())
                  for i in range(n_blocks)], t=t)


NO_MIN = dict(min_tokens=0)


def test_haiku_4_5_caches_nothing_under_4096_tokens():
    r = build([("system", "system", toks(1, 1500)), ("u1", "message", toks(2, 500))])
    assert min_cacheable_tokens("Claude Haiku 4.5") == 4096
    p0, p1 = predict([r, Request(r.tokens, t=1, blocks=r.blocks)], model="claude-haiku-4-5")
    for p in (p0, p1):
        assert (p.read, p.write, p.uncached) == (0, 0, 2000)
    assert "< minimum 4096" in p0.notes[0]


def test_same_prompt_is_cached_on_a_model_with_a_1024_minimum():
    r = build([("system", "system", toks(1, 1500)), ("u1", "message", toks(2, 500))])
    p0, p1 = predict([r, Request(r.tokens, t=1, blocks=r.blocks)], model="claude-sonnet-4-5")
    assert (p0.read, p0.write_5m, p0.uncached) == (0, 2000, 0)
    assert (p1.read, p1.write, p1.uncached) == (2000, 0, 0)


def test_minimum_applies_per_breakpoint_prefix():
    r = build([("system", "system", toks(1, 600)), ("u1", "message", toks(2, 600))])
    (p,) = predict([r], model="claude-sonnet-4-5", breakpoints=["system"])
    # the system breakpoint (600 tokens) is below 1024; the automatic one (1200) is not
    assert (p.write, p.uncached) == (1200, 0)
    assert any("'system'" in n for n in p.notes)


def test_dated_minimum_tables_differ_for_sonnet_4_6():
    assert min_cacheable_tokens("claude-sonnet-4-6") == 1024
    assert min_cacheable_tokens("claude-sonnet-4-6", table="2026-02") == 2048
    assert AnthropicConfig(model="claude-sonnet-4-6", min_table="2026-02").min_tokens == 2048


def test_automatic_mode_reads_the_previous_turn_and_writes_the_new_blocks():
    r0 = conversation(10)
    r1 = conversation(15, t=10)
    p0, p1 = predict([r0, r1], **NO_MIN)
    assert (p0.read, p0.write) == (0, 1000)
    assert (p1.read, p1.write, p1.uncached) == (1000, 500, 0)
    assert p1.matched_entry == "request 0 @ b10 (5m)" and p1.break_block == "b11"


def test_lookback_doc_example_15_then_35_misses():
    # turn 1: 10 blocks; turn 2: 15 blocks (hit at 10); turn 3: 35 blocks checks 35..16 and misses 15
    preds = predict([conversation(10), conversation(15, t=1), conversation(35, t=2)], **NO_MIN)
    assert [p.read for p in preds] == [0, 1000, 0]
    assert preds[2].write == 3500


def test_lookback_window_counts_the_breakpoint_itself():
    preds = predict([conversation(15), conversation(34, t=1)], **NO_MIN)   # checks 34..15: hit
    assert preds[1].read == 1500


def test_a_second_breakpoint_starts_a_second_window():
    preds = predict([conversation(15), conversation(35, t=1)], breakpoints=["b15"], **NO_MIN)
    assert preds[1].read == 1500 and preds[1].write == 2000


def test_a_run_of_tool_results_counts_as_one_position():
    def parts(i):
        return "tool_result" if 16 <= i <= 34 else ""
    preds = predict([conversation(15), conversation(35, t=1, parts=parts)], **NO_MIN)
    assert preds[1].read == 1500


def test_lookback_finds_only_earlier_writes_not_stable_content():
    # the last block changes every request (timestamp): automatic mode writes every time, reads nothing
    def req(i, t):
        return build([("base", "system", toks(1, 3000)), ("agents_md", "system", toks(2, 1500)),
                      ("now", "message", toks(100 + i, 50))], t=t)
    auto = predict([req(0, 0), req(1, 10), req(2, 20)], model="claude-haiku-4-5")
    assert [p.read for p in auto] == [0, 0, 0] and [p.write for p in auto] == [4550] * 3
    # an explicit breakpoint on the end of the stable part reads it back
    stable = predict([req(0, 0), req(1, 10)], model="claude-haiku-4-5", automatic=None, breakpoints=["agents_md"])
    assert (stable[1].read, stable[1].write, stable[1].uncached) == (4500, 0, 50)
    assert stable[1].break_block == "now"


def test_blocks_are_reordered_tools_before_system():
    # the local template puts tools after the system text; the API puts tools first
    def req(tool_seed, t):
        return build([("system", "system", toks(1, 2000)), ("tools", "tools", toks(tool_seed, 500)),
                      ("u1", "message", toks(3, 100))], t=t)
    preds = predict([req(2, 0), req(9, 1)], model="claude-sonnet-4-5", breakpoints=["system"])
    assert preds[0].notes[0].startswith("blocks re-ordered")
    assert preds[1].read == 0                # changing tools invalidates the system prefix behind it


def test_more_than_four_breakpoints_is_an_error():
    with pytest.raises(CacheControlError, match="at most 4"):
        AnthropicConfig(breakpoints=explicit("a", "b", "c", "d", "e"))
    with pytest.raises(CacheControlError, match="4 explicit"):
        AnthropicConfig(breakpoints=explicit("a", "b", "c", "d"))              # + automatic
    AnthropicConfig(breakpoints=explicit("a", "b", "c", "d"), automatic=None)  # fine


def test_automatic_on_an_explicit_last_block():
    r = conversation(3)
    cache = AnthropicCache(AnthropicConfig(breakpoints=[Breakpoint("b3", "5m")], **NO_MIN))
    assert cache.step(r).write == 300        # same TTL: a no-op, one breakpoint
    cache = AnthropicCache(AnthropicConfig(breakpoints=[Breakpoint("b3", "1h")], **NO_MIN))
    with pytest.raises(CacheControlError, match="ttl"):
        cache.step(r)


def test_longer_ttl_must_come_first():
    r = conversation(3)
    cache = AnthropicCache(AnthropicConfig(breakpoints=[("b1", "5m"), ("b2", "1h")], automatic=None, **NO_MIN))
    with pytest.raises(CacheControlError, match="longer TTLs must come first"):
        cache.step(r)


def test_unknown_or_empty_breakpoint_block():
    cache = AnthropicCache(AnthropicConfig(breakpoints=["memory"], **NO_MIN))
    with pytest.raises(ValueError, match="unknown block 'memory'.*b1"):
        cache.step(conversation(2))
    r = build([("a", "system", toks(1, 10)), ("empty", "message", ())])
    with pytest.raises(CacheControlError, match="empty"):
        AnthropicCache(AnthropicConfig(breakpoints=["empty"], automatic=None, **NO_MIN)).step(r)
    # automatic mode walks back past the empty last block
    assert AnthropicCache(AnthropicConfig(**NO_MIN)).step(r).write == 10


def test_five_minute_ttl_expires_and_is_refreshed_by_a_hit():
    r = conversation(3)
    def again(t):
        return Request(r.tokens, t=t, blocks=r.blocks)
    preds = predict([r, again(299), again(598)], **NO_MIN)
    assert [p.read for p in preds] == [0, 300, 300]      # the hit at 299 refreshed it to 599
    preds = predict([r, again(299), again(599)], **NO_MIN)
    assert preds[2].read == 0                           # expired exactly at 299 + 300
    preds = predict([r, again(400)], **NO_MIN)
    assert preds[1].read == 0 and preds[1].write == 300


def test_one_hour_ttl():
    r = conversation(3)
    preds = predict([r, Request(r.tokens, t=3000, blocks=r.blocks)], automatic="1h", **NO_MIN)
    assert preds[0].write_1h == 300 and preds[1].read == 300


def test_mixed_ttl_accounting_a_b_c():
    # 1h breakpoint on the stable system part, automatic 5m on the last block
    cfg = dict(breakpoints=[("system", "1h")], **NO_MIN)

    def req(n_msgs, t):
        return build([("system", "system", toks(1, 1000))] +
                     [(f"m{i}", "message", toks(10 + i, 100)) for i in range(n_msgs)], t=t)
    p0, p1, p2 = predict([req(2, 0), req(3, 60), req(4, 1000)], **cfg)
    # request 0: A = 0, B = 1000, C = 1200
    assert (p0.read, p0.write_1h, p0.write_5m) == (0, 1000, 200)
    # request 1: hit at the last block of request 0 (A = 1200); no 1h breakpoint after A
    assert (p1.read, p1.write_1h, p1.write_5m) == (1200, 0, 100)
    # request 2 after 5 minutes: the 5m entries expired, the 1h entry (refreshed at 60) still lives
    assert (p2.read, p2.write_1h, p2.write_5m, p2.uncached) == (1000, 0, 400, 0)
    assert p2.read + p2.write + p2.uncached == p2.total


def test_usage_identity_and_input_tokens_after_the_last_breakpoint():
    r = build([("system", "system", toks(1, 2000)), ("u", "message", toks(2, 300))])
    (p,) = predict([r], model="claude-sonnet-4-5", automatic=None, breakpoints=["system"])
    assert (p.read, p.write, p.uncached, p.total) == (0, 2000, 300, 2300)


def test_request_without_blocks_is_one_message():
    r = Request(toks(1, 5000))
    (p,) = predict([r])
    assert p.write == 5000


def test_unknown_model_and_bad_ttl():
    with pytest.raises(ValueError, match="unknown Anthropic model 'claude-haiku-9'.*claude-haiku-4-5"):
        AnthropicConfig(model="claude-haiku-9")
    with pytest.raises(ValueError, match="ttl"):
        Breakpoint("x", "10m")
    with pytest.raises(ValueError):
        AnthropicConfig(automatic="2h")
