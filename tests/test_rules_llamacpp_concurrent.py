"""The llama.cpp rule with concurrent requests (two agents on one server): a slot is busy from launch
to release (``Request.done``), busy slots are never picked nor saved, a task with no idle slot waits
for the first release, ``t_last_used`` follows the order requests finished. Hand-made requests; the
recording a7-4-parallel-two-slots checks the same against the real server."""
import pytest

from prefixlab.cache.rules import Request
from prefixlab.cache.rules.llamacpp import LlamaCppConfig, LlamaCppServer, predict

SHARED = tuple(range(1, 101))          # a system prompt both agents send
A = SHARED + tuple(range(1000, 1100))  # agent a's first prompt
B = SHARED + tuple(range(2000, 2100))  # agent b's first prompt


def two_slots(**overrides):
    return LlamaCppConfig(**{"n_slots": 2, "kv_unified": False, "n_ctx": 8192, "cache_ram_mib": 0, **overrides})


def slot_of(prediction):
    return prediction.matched_entry.split()[1] if prediction.matched_entry else None


def test_without_done_every_request_is_released_before_the_next():
    seq = [Request(A, t=0), Request(B, t=1), Request(A + (7,), t=2)]
    assert [p.read for p in predict(seq, two_slots())] == [0, 100, 100]


def test_a_busy_slot_is_not_picked_even_when_it_is_the_most_similar():
    # a on slot 1 (LRU picks the last never-used slot); b arrives while a runs: b cannot take slot 1
    # although it shares 100 tokens with it, so it gets the empty slot 0 and reads nothing
    server = LlamaCppServer(two_slots())
    a1 = server.step(Request(A, t=0.0, started=0.0, done=5.0))
    b1 = server.step(Request(B, t=1.0, started=1.0, done=3.0))
    assert (a1.read, b1.read) == (0, 0)
    assert [s.id for s in server.slots if s.tokens == B] == [0]
    # sequentially, b would have taken slot 1 by similarity and read the shared 100 tokens
    sequential = LlamaCppServer(two_slots())
    sequential.step(Request(A, t=0.0))
    assert sequential.step(Request(B, t=1.0)).read == 100


def test_each_agent_keeps_its_own_slot_while_both_run():
    server = LlamaCppServer(two_slots())
    reads = [server.step(r).read for r in [
        Request(A, t=0.0, started=0.0, done=2.0),
        Request(B, t=1.0, started=1.0, done=3.0),
        Request(A + (5,), t=2.5, started=2.5, done=4.0),      # a's slot released at 2.0; b still busy
        Request(B + (6,), t=3.5, started=3.5, done=5.0),      # b's released at 3.0; a busy again
    ]]
    assert reads == [0, 0, len(A), len(B)]


def test_a_request_with_no_idle_slot_waits_for_the_first_release():
    config = LlamaCppConfig.single_slot(n_ctx=8192, cache_ram_mib=0)
    server = LlamaCppServer(config)
    server.step(Request(A, t=0.0, started=0.0, done=4.0))
    p = server.step(Request(A + (9,), t=1.0, started=1.0, done=5.0))   # deferred until 4.0, then on the one slot
    assert p.read == len(A)
    assert any("deferred" in note for note in p.notes)


def test_lru_follows_the_order_requests_finished_not_arrived():
    config = two_slots(slot_prompt_similarity=0.0)   # LRU only
    server = LlamaCppServer(config)
    server.step(Request(A, t=0.0, started=0.0, done=9.0))   # slot 1, finishes last
    server.step(Request(B, t=1.0, started=1.0, done=2.0))   # slot 0, finishes first
    # at t=10 both are idle; slot 0 was released first, so it is the least recently used
    p = server.step(Request(A + (3,), t=10.0))
    assert p.read == len(SHARED) and any("slot 0 picked as least recently used" in n for n in p.notes)
    # had they finished in arrival order, slot 1 would be the older one and a would read its prompt
    server = LlamaCppServer(config)
    server.step(Request(A, t=0.0, started=0.0, done=2.0))
    server.step(Request(B, t=1.0, started=1.0, done=9.0))
    assert server.step(Request(A + (3,), t=10.0)).read == len(A)


def test_idle_slot_saves_skip_a_busy_slot():
    config = LlamaCppConfig(n_slots=2, kv_unified=False, n_ctx=8192)   # host cache on
    server = LlamaCppServer(config)
    server.step(Request(A, t=0.0, started=0.0, done=5.0))        # slot 1, busy
    server.step(Request(B, t=1.0, started=1.0, done=2.0))        # slot 0; a's slot is busy: not saved
    assert server.host == []
    server.step(Request(B + (1,), t=3.0, started=3.0, done=4.0))  # a still busy, b's slot was its own: nothing idle
    assert server.host == []
    server.step(Request(B + (1, 2), t=6.0))          # a released at 5.0: now idle, saved at launch
    assert [len(e.tokens) for e in server.host] == [len(A)]


def test_a_refused_request_releases_its_slot_at_once():
    config = two_slots(n_ctx=512)    # 256 tokens per slot
    server = LlamaCppServer(config)
    big = tuple(range(5000, 5300))
    p = server.step(Request(big, t=0.0, started=0.0, done=9.0))
    assert p.refused
    assert not any(s.busy for s in server.slots)


def test_bad_server_times_are_refused():
    with pytest.raises(ValueError, match="before it started"):
        Request(A, started=2.0, done=1.0)
    with pytest.raises(ValueError, match="done"):
        Request(A, started=2.0, done=float("nan"))
    with pytest.raises(ValueError, match="go together"):
        Request(A, done=3.0)


def test_a_request_that_came_during_a_decode_is_launched_after_the_release():
    # the server's times, not the client's: b was sent while a was being computed, but the loop
    # launched it only after a's pass ended (released at 2.0, b started at 2.1): a's slot is idle
    server = LlamaCppServer(two_slots())
    server.step(Request(A, t=0.0, started=0.0, done=2.0))
    assert server.step(Request(B, t=1.0, started=2.1, done=3.0)).read == len(SHARED)
