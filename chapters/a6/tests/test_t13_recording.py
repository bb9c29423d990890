"""The shipped T13 recordings (lesson A6·4), offline: what the lesson says they show.

Every request predicted exactly is in test_shipped_recordings.py (all recordings); here: a fork
reuses everything it shares with the conversation the server holds, and what switching between
two branches keeps under each server setup -- with the rule's own account of why.
"""
import pytest

from prefixlab.cache import calculator
from prefixlab.cache.rules.base import common_prefix
from prefixlab.paths import RECORDINGS

FORKS = RECORDINGS / "t13-forks-smollm2-llamacpp"
SWITCH = {setup: RECORDINGS / f"t13-switch-{setup}" for setup in ("one-slot", "host-cache", "two-slots",
                                                                   "two-slots-lru")}


@pytest.fixture(scope="module")
def forks():
    return calculator.prepare(FORKS)


def test_each_fork_reuses_all_it_shares_with_day1(forks):
    rec, rows = forks.recording, {r.seq: r for r in calculator.analyze(forks)}
    day1 = rec.session_calls("day1")
    last = forks.attributions[day1[-1].seq].ids  # what the server holds when the user goes back
    for r in range(1, len(day1)):
        first = rec.session_calls(f"fork-r{r}")[0]
        ids = forks.attributions[first.seq].ids
        shared = common_prefix(ids, last)
        assert first.cached_tokens == shared == rows[first.seq].read
        # ... which is day 1's request of round r+1 (rounds 1..r) up to the fork's own message
        assert shared == common_prefix(ids, forks.attributions[day1[r].seq].ids)
        assert first.prompt_tokens - shared == rec.session_calls("fork-r1")[0].prompt_tokens - \
            rec.session_calls("fork-r1")[0].cached_tokens  # only the new user message is computed
    hits = [rec.session_calls(f"fork-r{r}")[0].cached_tokens for r in range(1, len(day1))]
    assert hits == sorted(hits)  # the later the fork, the more it shares


def test_each_replay_meets_a_fresh_server_like_day1(forks):
    rec = forks.recording
    day1 = [(c.prompt_tokens, c.cached_tokens) for c in rec.session_calls("day1")]
    for s in rec.manifest["sessions"]:
        if s["kind"] == "replay":
            assert [(c.prompt_tokens, c.cached_tokens) for c in rec.session_calls(s["id"])] == day1


@pytest.fixture(scope="module", params=list(SWITCH), ids=list(SWITCH))
def switch(request):
    replay = calculator.prepare(SWITCH[request.param])
    return request.param, replay, calculator.analyze(replay)


def switches(rec):
    """Positions of the requests sent right after a request of the other branch."""
    return [i for i in range(2, len(rec.calls)) if rec.calls[i].session != rec.calls[i - 1].session]


def test_switch_setups_are_what_their_flags_say(switch):
    setup, replay, _ = switch
    rec = replay.recording
    config = calculator.llamacpp_config(rec)
    assert rec.manifest["setup"] == setup and rec.provenance["server"]["props"]["total_slots"] == config.n_slots
    assert (config.n_slots, config.host_cache, config.kv_unified) == {
        "one-slot": (1, False, False), "host-cache": (1, True, False),
        "two-slots": (2, True, False), "two-slots-lru": (2, True, False)}[setup]
    assert config.slot_prompt_similarity == (0.0 if setup == "two-slots-lru" else 0.1)


def test_without_a_host_cache_every_switch_keeps_only_the_trunk(switch):
    setup, replay, rows = switch
    rec = replay.recording
    trunk = common_prefix(replay.attributions[1].ids, replay.attributions[2].ids)  # a's and b's first requests
    kept = [rec.calls[i].cached_tokens for i in switches(rec)]
    if setup == "one-slot":
        assert kept == [trunk] * len(kept)
    elif setup == "two-slots-lru":
        # b's first request lands on the other slot, which holds only the trunk's round-1 request;
        # from then on each branch finds its own last request in its own slot
        assert kept[0] == rec.calls[0].prompt_tokens < trunk and all(k > trunk for k in kept[1:])
    else:  # the host cache does better on some switches, never worse
        assert all(k >= trunk for k in kept) and any(k > trunk for k in kept)


def test_the_host_cache_brings_a_branch_back_once_the_slot_would_keep_less_than_half(switch):
    setup, replay, rows = switch
    if setup not in ("host-cache", "two-slots"):
        pytest.skip("one slot picked by similarity, with the host cache")
    rec = replay.recording
    trunk = common_prefix(replay.attributions[1].ids, replay.attributions[2].ids)
    loads = 0
    for i in switches(rec):
        call, before = rec.calls[i], rec.calls[i - 1]  # the slot holds the other branch's last request
        same = [c for c in rec.calls[:i] if c.session == call.session]
        loaded = any(n.startswith("load host entry") for n in rows[i].prediction.notes)
        if loaded:
            loads += 1
            assert trunk / before.prompt_tokens < 0.5  # f_keep < 0.5: the slot is saved, a better prompt loaded
            assert call.cached_tokens == same[-1].prompt_tokens  # this branch's own last request, all of it
        else:
            assert call.cached_tokens == trunk
    assert loads >= 2
    if setup == "two-slots":  # slot 0 is never picked: every request shares more than 10 % with slot 1
        assert all(any(n.startswith("slot 1 picked") for n in r.prediction.notes) for r in rows[1:])
        host = calculator.prepare(SWITCH["host-cache"]).recording
        assert [c.cached_tokens for c in rec.calls] == [c.cached_tokens for c in host.calls]


def test_two_slots_picked_by_lru_keep_one_branch_each(switch):
    setup, replay, rows = switch
    if setup != "two-slots-lru":
        pytest.skip("slots picked by LRU")
    rec = replay.recording
    for i in switches(rec)[1:]:
        call = rec.calls[i]
        same = [c for c in rec.calls[:i] if c.session == call.session]
        assert call.cached_tokens == same[-1].prompt_tokens  # its own slot still holds its last request
