"""The llama.cpp rule at the server's limits: prompts a slot cannot hold, padded per-slot contexts,
per-request cache fields and ``--cache-reuse`` chunk shifting (see the rule's docstring for the source
lines). tests/test_rules_llamacpp_limits_real.py checks the same cases against the real server."""
import pytest

from prefixlab.cache.rules import Request
from prefixlab.cache.rules.llamacpp import LlamaCppConfig, LlamaCppServer, pad256, predict


def ids(start, n):
    return tuple(range(start, start + n))


# -- contexts -------------------------------------------------------------------------------------

@pytest.mark.parametrize("n_ctx, n_slots, unified, per_slot, total", [
    (8192, 1, False, 8192, 8192),
    (8192, 2, False, 4096, 8192),
    (8192, 3, False, 2816, 8448),    # 8192 / 3 = 2730 -> padded to 2816, and the total follows
    (8192, 4, True, 8192, 8192),     # -np auto: one unified pool, every slot may use all of it
    (2048, 1, False, 2048, 2048),
    (2000, 1, False, 2048, 2048),    # -c is padded too
    (0, 1, False, 0, 0),             # unknown: nothing is refused
])
def test_per_slot_context_is_the_servers(n_ctx, n_slots, unified, per_slot, total):
    config = LlamaCppConfig(n_ctx=n_ctx, n_slots=n_slots, kv_unified=unified)
    assert (config.context_per_slot, config.context_total) == (per_slot, total)


def test_training_context_and_per_slot_flag_cap_a_slot():
    assert LlamaCppConfig.single_slot(n_ctx=16384, n_ctx_train=8192).context_per_slot == 8192
    assert LlamaCppConfig(n_ctx=8192, kv_unified_per_slot=3000).context_per_slot == 3000


def test_pad256():
    assert [pad256(n) for n in (0, 1, 256, 257, 2730)] == [0, 256, 256, 512, 2816]


@pytest.mark.parametrize("field", ["cache_reuse", "n_ctx_train", "kv_unified_per_slot"])
@pytest.mark.parametrize("bad", [-1, 1.5, True, "256"])
def test_bad_settings_are_refused(field, bad):
    with pytest.raises(ValueError, match=field):
        LlamaCppConfig(**{field: bad})


# -- a prompt the slot cannot hold ----------------------------------------------------------------

def test_a_prompt_at_the_slot_context_is_refused_and_the_slot_keeps_its_tokens():
    server = LlamaCppServer(LlamaCppConfig.single_slot(n_ctx=2048, cache_ram_mib=0))
    first = ids(1000, 500)
    assert server.step(Request(first, (7, 8), t=0)).read == 0
    refused = server.step(Request(first + ids(5000, 1548), t=1))   # 2,048 tokens: >= n_ctx_slot
    assert refused.refused and "exceeds the available context size (2048 tokens)" in refused.refused
    assert (refused.read, refused.fresh, refused.write, refused.total) == (0, 0, 0, 2048)
    # The next request still finds the first prompt (and the one generated token kept) in the slot.
    after = server.step(Request(first + (7,) + ids(9000, 10), t=2))
    assert after.read == 501


def test_one_token_less_than_the_context_is_served():
    server = LlamaCppServer(LlamaCppConfig.single_slot(n_ctx=2048, cache_ram_mib=0))
    assert server.step(Request(ids(1000, 2047))).refused is None


def test_a_refused_request_still_counts_as_the_latest_use_of_its_slot():
    # Two slots, no similarity pick: LRU. Slot 1 serves a, slot 0 serves b; the refused request is
    # put on slot 1 (least recently used) and stamps it, so the next unrelated prompt goes to slot 0.
    config = LlamaCppConfig(n_slots=2, kv_unified=False, n_ctx=4096, slot_prompt_similarity=0.0, cache_ram_mib=0)
    server = LlamaCppServer(config)
    a, b, c = ids(1000, 100), ids(3000, 100), ids(6000, 100)
    server.step(Request(a))
    server.step(Request(b))
    assert server.step(Request(ids(9000, 2048))).refused
    assert [s.tokens[:1] for s in server.slots] == [b[:1], a[:1]]
    server.step(Request(c))
    assert server.slots[0].tokens[:100] == c and server.slots[1].tokens[:100] == a


def test_host_cache_work_happens_before_the_refusal():
    # LRU pick with a host cache: the slot is saved (and a cached prompt may be loaded) first.
    server = LlamaCppServer(LlamaCppConfig.single_slot(n_ctx=2048))
    a = ids(1000, 300)
    server.step(Request(a))
    refused = server.step(Request(ids(20000, 2100)))
    assert refused.refused
    assert any("save slot 0" in note for note in refused.notes)
    assert len(server.host) == 1


def test_predict_returns_refusals_in_place():
    out = predict([Request(ids(1, 10)), Request(ids(1, 3000)), Request(ids(1, 12))],
                  LlamaCppConfig.single_slot(n_ctx=2048, cache_ram_mib=0))
    assert [p.refused is not None for p in out] == [False, True, False]
    assert out[2].read == 10


# -- per-request fields -----------------------------------------------------------------------------

def test_cache_prompt_false_reads_nothing_but_the_slot_still_holds_the_prompt():
    server = LlamaCppServer(LlamaCppConfig.single_slot(cache_ram_mib=0))
    a = ids(1000, 200)
    server.step(Request(a, (5, 6)))
    assert server.step(Request(a + ids(3000, 20), (8, 9), cache_prompt=False)).read == 0
    assert server.step(Request(a + ids(3000, 20) + (8,) + ids(4000, 5))).read == 221


@pytest.mark.parametrize("bad", [{"cache_prompt": 1}, {"cache_reuse": -1}, {"cache_reuse": True}])
def test_bad_request_fields_are_refused(bad):
    with pytest.raises(ValueError):
        Request(ids(1, 5), **bad)


# -- --cache-reuse ---------------------------------------------------------------------------------

def masked(n_reuse, tail, request_reuse=None):
    """Slot: head + middle + tail; the new prompt drops the middle (an old tool output masked away)."""
    head, middle, end = ids(1000, 300), ids(5000, 400), ids(9000, tail)
    server = LlamaCppServer(LlamaCppConfig.single_slot(cache_ram_mib=0, cache_reuse=n_reuse))
    server.step(Request(head + middle + end, (1, 2)))
    return server.step(Request(head + ids(20000, 5) + end + ids(30000, 7), cache_reuse=request_reuse))


def test_without_cache_reuse_the_prefix_ends_at_the_first_difference():
    assert masked(0, 300).read == 300


def test_a_chunk_of_at_least_n_tokens_is_shifted_into_place_and_counted():
    # The new prompt: head, 5 new tokens, then the old tail. The 5 new tokens are not in the slot, so
    # head_p stays at 300 and the walk never reaches the tail: only an *adjacent* chunk is reused.
    assert masked(256, 300).read == 300


def test_a_dropped_middle_is_bridged_by_the_tail_chunk():
    head, middle, tail = ids(1000, 300), ids(5000, 400), ids(9000, 300)
    server = LlamaCppServer(LlamaCppConfig.single_slot(cache_ram_mib=0, cache_reuse=256))
    server.step(Request(head + middle + tail, (1, 2)))
    got = server.step(Request(head + tail + ids(30000, 7)))
    assert got.read == 600 and got.break_at == 300
    assert any("reused a chunk of 300 tokens, [700, 1000) -> [300, 600)" in n for n in got.notes)


def test_a_chunk_shorter_than_n_is_not_reused():
    head, middle, tail = ids(1000, 300), ids(5000, 400), ids(9000, 200)
    server = LlamaCppServer(LlamaCppConfig.single_slot(cache_ram_mib=0, cache_reuse=256))
    server.step(Request(head + middle + tail, (1, 2)))
    assert server.step(Request(head + tail + ids(30000, 7))).read == 300


def test_the_request_field_overrides_the_server_flag():
    head, middle, tail = ids(1000, 300), ids(5000, 400), ids(9000, 200)
    server = LlamaCppServer(LlamaCppConfig.single_slot(cache_ram_mib=0, cache_reuse=256))
    server.step(Request(head + middle + tail, (1, 2)))
    assert server.step(Request(head + tail + ids(30000, 7), cache_reuse=100)).read == 500


def test_the_whole_prompt_reused_still_evaluates_one_token():
    head, middle, tail = ids(1000, 300), ids(5000, 400), ids(9000, 300)
    server = LlamaCppServer(LlamaCppConfig.single_slot(cache_ram_mib=0, cache_reuse=256))
    server.step(Request(head + middle + tail, (1, 2)))
    assert server.step(Request(head + tail)).read == 599   # the n-1 cap after reuse


def test_several_chunks_in_order():
    a, x, b, y, c = ids(1000, 100), ids(3000, 50), ids(5000, 300), ids(7000, 40), ids(9000, 280)
    server = LlamaCppServer(LlamaCppConfig.single_slot(cache_ram_mib=0, cache_reuse=256))
    server.step(Request(a + x + b + y + c, (1, 2)))
    assert server.step(Request(a + b + c + ids(20000, 3))).read == 680
