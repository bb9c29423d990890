"""llama-server reuse rules on hand-built token sequences (no server needed)."""
import numpy as np
import pytest

from prefixlab.cache.rules import Request
from prefixlab.cache.rules.llamacpp import HostEntry, LlamaCppConfig, LlamaCppServer, f32, predict

from rule_helpers import seq

MIB = 1024 * 1024


def run(config, prompts, generated=None):
    server = LlamaCppServer(config)
    gens = generated or [()] * len(prompts)
    preds = [server.step(Request(p, g, t=float(i))) for i, (p, g) in enumerate(zip(prompts, gens))]
    return server, preds


NP1_NO_HOST = LlamaCppConfig.single_slot(cache_ram_mib=0)


def test_identical_resend_is_capped_at_n_minus_1():
    p = seq(0, 50)
    _, (first, second) = run(NP1_NO_HOST, [p, p])
    assert (first.read, first.fresh) == (0, 50)
    assert (second.read, second.fresh, second.write) == (49, 1, 1)
    assert second.break_at == 50  # the slot covers the whole prompt; only the cap stops it


def test_slot_keeps_prompt_and_generated_except_the_last_token():
    p, gen = seq(0, 40), (900, 901, 902)
    nxt = p + gen + seq(1000, 10)
    _, (_, second) = run(NP1_NO_HOST, [p, nxt], [gen, ()])
    assert second.read == 40 + 2  # 902 (the last sampled token) was never decoded into the slot
    assert second.break_at == 42


def test_divergence_point_is_the_longest_common_prefix():
    a = seq(0, 30) + seq(100, 20)
    b = seq(0, 30) + seq(200, 20)
    _, (_, second) = run(NP1_NO_HOST, [a, b])
    assert second.read == 30 and second.break_at == 30


def test_cache_prompt_off_reuses_nothing():
    p = seq(0, 20)
    _, preds = run(LlamaCppConfig.single_slot(cache_ram_mib=0, cache_prompt=False), [p, p])
    assert [x.read for x in preds] == [0, 0]


def test_without_host_cache_an_older_prompt_is_lost_with_one_slot():
    a, u = seq(0, 100), seq(5000, 100)
    a2 = a + seq(200, 20)
    _, preds = run(NP1_NO_HOST, [a, u, a2])
    assert preds[2].read == 0


def test_host_cache_load_path_brings_the_older_prompt_back():
    a, u = seq(0, 100), seq(5000, 100)
    a2 = a + seq(200, 20)
    server, preds = run(LlamaCppConfig.single_slot(), [a, u, a2])
    assert preds[2].read == 100
    assert preds[2].matched_entry == "slot 0 <- request 0"
    assert any("load host entry request 0" in e for e in preds[2].notes)
    # the loaded entry was moved out; the slot's previous contents (u) were saved
    assert [e.tokens for e in server.host] == [u]


def test_lru_picks_the_last_of_equally_old_slots():
    cfg = LlamaCppConfig(n_slots=3, kv_unified=False, cache_ram_mib=0)
    server, _ = run(cfg, [seq(0, 10)])
    assert [bool(s.tokens) for s in server.slots] == [False, False, True]


def test_similarity_threshold_is_strictly_greater_than_0_10():
    cfg = LlamaCppConfig(n_slots=2, kv_unified=False, cache_ram_mib=0)
    base = seq(0, 100)
    exactly_10 = base[:10] + seq(300, 90)   # f_sim = 10/100 = 0.10: not > 0.10 -> LRU picks empty slot 0
    above_10 = base[:11] + seq(300, 89)     # f_sim = 0.11 -> slot 1
    _, p1 = run(cfg, [base, exactly_10])
    _, p2 = run(cfg, [base, above_10])
    assert p1[1].read == 0 and "least recently used" in p1[1].notes[0]
    assert p2[1].read == 11 and "similarity" in p2[1].notes[0]


def test_similarity_disabled_uses_lru_only():
    cfg = LlamaCppConfig(n_slots=2, kv_unified=False, cache_ram_mib=0, slot_prompt_similarity=0.0)
    base = seq(0, 100)
    _, preds = run(cfg, [base, base + (7,)])
    # LRU: slot 1 took request 0, so request 1 goes to the never-used slot 0
    assert preds[1].read == 0


def test_two_slots_keep_two_conversations():
    cfg = LlamaCppConfig(n_slots=2, kv_unified=False, cache_ram_mib=0)
    a, b = seq(0, 60), seq(5000, 60)
    _, preds = run(cfg, [a, b, a + (1,), b + (1,)])
    assert [p.read for p in preds] == [0, 0, 60, 60]


def test_default_server_moves_idle_slots_to_the_host_cache():
    # defaults: 4 slots, unified KV, cache-ram 8192 MiB, cache-idle-slots on
    a, u = seq(0, 100), seq(5000, 100)
    a2 = a + seq(200, 50)
    server = LlamaCppServer(LlamaCppConfig())
    r0 = server.step(Request(a, t=0))
    assert server.slots[3].tokens == a
    r1 = server.step(Request(u, t=1))          # LRU: slot 2; idle slot 3 is saved and cleared
    assert server.slots[3].tokens == () and [e.tokens for e in server.host] == [a]
    r2 = server.step(Request(a2, t=2))         # LRU: slot 1 (empty) loads request 0's entry
    assert (r0.read, r1.read, r2.read) == (0, 0, 100)
    assert r2.matched_entry == "slot 1 <- request 0"
    assert [e.tokens for e in server.host] == [u] and server.slots[2].tokens == ()


def test_save_skips_contained_prompts_and_drops_prefix_entries():
    cfg = LlamaCppConfig(n_slots=2, kv_unified=False)  # idle slots are saved but keep their tokens
    a, u, v = seq(0, 100), seq(5000, 100), seq(9000, 100)
    a2 = a + seq(200, 50)
    server, preds = run(cfg, [a, u, a2, v])
    assert preds[2].read == 100
    notes = preds[3].notes
    assert any("already in host cache, skipped" in n for n in notes)      # u was saved at request 2
    assert any("dropped entry request 0" in n for n in notes)             # a is a prefix of a2
    assert [e.tokens for e in server.host] == [u, a2]
    assert server.slots[1].tokens == a2                                   # a save copies, it does not move


def _server_with_host(slot_tokens, entries, **cfg):
    server = LlamaCppServer(LlamaCppConfig.single_slot(**cfg))
    server.slots[0].tokens, server.slots[0].origin = slot_tokens, "slot contents"
    server.slots[0].t_last_used = 0
    server.host[:] = [HostEntry(t, 0, name) for name, t in entries]
    return server


def test_load_skips_entries_with_f_keep_below_0_25():
    new = seq(0, 24) + seq(700, 100)
    entry = seq(0, 100)                      # lcp 24 -> f_keep 0.24
    server = _server_with_host(seq(5000, 10), [("e", entry)])
    assert server.step(Request(new)).read == 0
    new25 = seq(0, 25) + seq(700, 100)       # lcp 25 -> f_keep exactly 0.25: allowed
    server = _server_with_host(seq(5000, 10), [("e", entry)])
    assert server.step(Request(new25)).read == 25


def test_load_needs_strictly_better_f_keep_and_f_sim():
    p = seq(0, 400)
    slot = p[:300] + seq(5000, 700)          # f_sim 0.75 -> picked; f_keep 0.3 < 0.5 -> cache update
    worse_sim = p[:200] + seq(6000, 50)      # f_keep 0.8 but f_sim 0.5: not taken
    better = p[:350] + seq(7000, 10)         # f_keep 0.97, f_sim 0.875: taken
    server = _server_with_host(slot, [("worse", worse_sim)])
    pred = server.step(Request(p))
    assert pred.read == 300 and pred.matched_entry == "slot 0 <- slot contents"
    server = _server_with_host(slot, [("worse", worse_sim), ("better", better)])
    pred = server.step(Request(p))
    assert pred.read == 350 and pred.matched_entry == "slot 0 <- better"


def test_load_walk_order_matters_first_improvement_sets_the_bar():
    p = seq(0, 400)
    e1 = p[:200] + seq(6000, 50)             # f_keep 0.8,  f_sim 0.5   (older, seen first)
    e2 = p[:300] + seq(7000, 300)            # f_keep 0.5,  f_sim 0.75  (longer match, lower f_keep)
    server = _server_with_host(seq(5000, 10), [("e1", e1), ("e2", e2)])
    pred = server.step(Request(p))
    assert pred.read == 200 and pred.matched_entry == "slot 0 <- e1"


def test_high_f_keep_similarity_pick_does_not_touch_the_host_cache():
    p = seq(0, 100)
    server = _server_with_host(p, [])
    server.step(Request(p + (1, 2)))
    assert server.host == []                 # f_keep = 1.0 >= 0.5: no save


def test_byte_limit_evicts_the_oldest_entry_first():
    cfg = dict(cache_ram_mib=250, state_bytes_per_token=MIB)     # 100 tokens = 100 MiB
    a, b, c, d = (seq(k * 1000, 100) for k in range(1, 5))
    a2 = a + seq(100000, 10)
    _, preds = run(LlamaCppConfig.single_slot(**cfg), [a, b, c, d, a2])
    assert preds[4].read == 0
    assert any("evicted oldest entry request 0" in n for n in preds[3].notes)
    _, preds = run(LlamaCppConfig.single_slot(cache_ram_mib=450, state_bytes_per_token=MIB), [a, b, c, d, a2])
    assert preds[4].read == 100


def test_state_larger_than_the_byte_limit_is_never_saved():
    cfg = LlamaCppConfig.single_slot(cache_ram_mib=50, state_bytes_per_token=MIB)
    a, u = seq(0, 100), seq(5000, 100)
    server, preds = run(cfg, [a, u, a + (1,)])
    assert server.host == []
    assert preds[2].read == 0
    assert any("larger than cache-ram" in n for n in preds[1].notes)


def test_token_limit_without_byte_limit_is_n_ctx():
    # 256, not 250: the server pads its context to a multiple of 256 (src/llama-context.cpp:292)
    cfg = LlamaCppConfig.single_slot(cache_ram_mib=-1, n_ctx=256)
    a, b, c, d = (seq(k * 1000, 100) for k in range(1, 5))
    _, preds = run(cfg, [a, b, c, d, a + (1,)])
    assert any("token limit 256" in n for n in preds[3].notes)
    assert preds[4].read == 0


def test_token_limit_grows_with_the_byte_limit():
    # 1 byte per token and 1 MiB of cache-ram: the token limit is max(n_ctx, 1 MiB / 1) = 1,048,576
    cfg = LlamaCppConfig.single_slot(cache_ram_mib=1, n_ctx=250, state_bytes_per_token=1)
    a, b, c, d = (seq(k * 1000, 100) for k in range(1, 5))
    _, preds = run(cfg, [a, b, c, d, a + (1,)])
    assert preds[4].read == 100


def test_float32_rounding_matches_numpy():
    for num, den in [(1, 3), (100, 150), (25, 100), (7, 10), (12345, 54321)]:
        assert f32(num / den) == float(np.float32(num) / np.float32(den))
    f_sim = f32(100 / 150)
    assert f32(f32(f_sim * f32(150)) / f32(200)) == float(np.float32(f_sim) * np.float32(150) / np.float32(200))


def test_predict_accepts_overrides_and_checks_order():
    p = seq(0, 10)
    assert [x.read for x in predict([Request(p), Request(p, t=1)], n_slots=1, cache_ram_mib=0)] == [0, 9]
    with pytest.raises(ValueError, match="non-decreasing"):
        predict([Request(p, t=5), Request(p, t=1)])


@pytest.mark.parametrize("bad", [dict(n_slots=0), dict(cache_ram_mib=-2), dict(slot_prompt_similarity=1.5),
                                 dict(n_ctx=-1)])
def test_bad_config_is_rejected(bad):
    with pytest.raises(ValueError):
        LlamaCppConfig(**bad)


# -- two branches of one session taking turns (T13, lesson A6·4) -------------------------------------

TRUNK = seq(0, 100)


def branches():
    """a1 b1 a2 b2 a3 b3: two branches after a 100-token trunk; each request extends its branch's last one."""
    a1, b1 = TRUNK + seq(1000, 50), TRUNK + seq(5000, 60)
    a2, b2 = a1 + seq(2000, 200), b1 + seq(6000, 200)
    a3, b3 = a2 + seq(3000, 50), b2 + seq(7000, 50)
    return [a1, b1, a2, b2, a3, b3]


def test_switching_branches_on_one_slot_without_host_cache_keeps_only_the_trunk():
    _, preds = run(NP1_NO_HOST, branches())
    assert [p.read for p in preds] == [0, 100, 100, 100, 100, 100]


def test_switching_with_the_host_cache_brings_a_branch_back_once_f_keep_drops_below_half():
    _, preds = run(LlamaCppConfig.single_slot(), branches())
    # b1, a2: the slot keeps >= half (100/150, 100/160): similarity pick, no host cache, only the trunk.
    # b2: 100/350 < 0.5 -> a2 saved; nothing better to load (b1 was never saved) -> the trunk.
    # a3: 100/360 < 0.5 -> b2 saved, a2 loaded back; b3: a3 saved, b2 loaded back.
    assert [p.read for p in preds] == [0, 100, 100, 100, 350, 360]
    assert any(n.startswith("load host entry") for n in preds[4].notes)
    assert not any("host" in n for n in preds[2].notes)


def test_two_slots_picked_by_similarity_leave_the_second_slot_empty():
    one_slot = [p.read for p in run(LlamaCppConfig.single_slot(), branches())[1]]
    server, preds = run(LlamaCppConfig(n_slots=2, kv_unified=False), branches())
    assert [p.read for p in preds] == one_slot
    assert server.slots[0].tokens == ()  # every prompt shares > 10 % with slot 1, so slot 0 is never picked


def test_two_slots_picked_by_lru_keep_one_branch_each():
    config = LlamaCppConfig(n_slots=2, kv_unified=False, slot_prompt_similarity=0.0)
    server, preds = run(config, branches())
    # a1 -> slot 1 (the last never-used slot), b1 -> slot 0 (empty; the host cache is still empty);
    # from then on LRU alternates and each branch finds its own last request in its own slot
    assert [p.read for p in preds] == [0, 0, 150, 160, 350, 360]
    assert server.slots[1].tokens == branches()[4] and server.slots[0].tokens == branches()[5]
