"""The facts chapter A5's lessons will read from its shipped recordings, pinned.

A5·1 (``a5-1-overflow-smollm2-llamacpp``, ``-c 2048 -np 1``): which request the server refused and
why, and what the slot held afterwards. A5·2 (``a5-2-masking-reuse0-…`` and ``…-reuse256-…``): the
same requests on two servers; with ``--cache-reuse 256`` the requests after a newly cut tool result
read a shifted chunk, measured = predicted.
"""
import pytest

from prefixlab.cache import calculator
from prefixlab.cache.rules.base import common_prefix
from prefixlab.paths import RECORDINGS

OVERFLOW = RECORDINGS / "a5-1-overflow-smollm2-llamacpp"
REUSE0 = RECORDINGS / "a5-2-masking-reuse0-smollm2-llamacpp"
REUSE256 = RECORDINGS / "a5-2-masking-reuse256-smollm2-llamacpp"


@pytest.fixture(scope="module")
def overflow():
    return calculator.prepare(OVERFLOW)


def test_the_fourth_request_is_refused_for_exceeding_the_context(overflow):
    rec = overflow.recording
    assert calculator.llamacpp_config(rec).n_ctx == 2048
    refused = [c for c in rec.calls if c.refused is not None]
    assert [(c.seq, c.session, c.round) for c in refused] == [(3, "overflow", 4)]
    call, = refused
    body = call.error["body"]["error"]
    assert call.error["status"] == 400 and body["type"] == "exceed_context_size_error"
    assert body["n_ctx"] == 2048 and call.prompt_tokens == body["n_prompt_tokens"] == 2070
    assert len(overflow.attributions[3]) == 2070  # re-tokenized offline: the same count
    assert [c.prompt_tokens for c in rec.calls[:3]] == [843, 949, 1535]  # each under the context


def test_after_the_refusal_the_slot_still_holds_the_last_served_prompt(overflow):
    rows = calculator.analyze(overflow)
    assert all(r.ok for r in rows) and rows[3].refused and rows[3].predicted_refused
    served, refused, retry = (overflow.attributions[i].ids for i in (2, 3, 4))
    assert rows[4].session == "retry" and rows[4].measured == rows[4].read == 1535 == len(served)
    # had the refused prompt entered the slot, the retry would have read more of it
    assert common_prefix(refused, retry) > common_prefix(served, retry) == 1535


@pytest.fixture(scope="module")
def masking():
    return {name: calculator.analyze(path) for name, path in (("reuse0", REUSE0), ("reuse256", REUSE256))}


def test_both_servers_got_the_same_requests():
    a, b = calculator.load_recording(REUSE0), calculator.load_recording(REUSE256)
    assert [c.request for c in a.calls] == [c.request for c in b.calls]
    assert (calculator.llamacpp_config(a).cache_reuse, calculator.llamacpp_config(b).cache_reuse) == (0, 256)


def test_with_cache_reuse_256_the_tail_after_a_cut_result_is_read_from_the_slot(masking):
    for rows in masking.values():
        assert all(r.ok for r in rows)  # measured = predicted, request by request
    assert all(r.read == r.break_at for r in masking["reuse0"])  # no chunk: the cache stops at the change
    reused = [(r.seq, r.break_at, r.read) for r in masking["reuse256"] if r.read > r.break_at]
    assert [seq for seq, _, _ in reused] == [3, 4, 5, 6, 7]  # every request after the first cut
    assert all(read - start >= 256 for _, start, read in reused)
    assert [r.break_at for r in masking["reuse256"]] == [r.break_at for r in masking["reuse0"]]


A5_RECORDINGS = ["a5-2-nomask-reuse0-smollm2-llamacpp", "a5-2-placeholder-reuse256-smollm2-llamacpp",
                 "a5-1-triggers-smollm2-llamacpp", "a5-4-summary-call-smollm2-llamacpp"]


@pytest.mark.parametrize("name", A5_RECORDINGS)
def test_every_cached_count_is_predicted_exactly_summary_calls_included(name):
    rows = calculator.analyze(RECORDINGS / name)
    assert rows and all(r.ok for r in rows)
    assert all(r.predicted_refused for r in rows if r.refused)


def test_a_placeholder_is_found_again_by_cache_reuse_less_than_the_first_line():
    place = calculator.analyze(RECORDINGS / "a5-2-placeholder-reuse256-smollm2-llamacpp")
    first = calculator.analyze(REUSE256)
    assert len(place) == len(first)
    assert sum(r.measured for r in place) < sum(r.measured for r in first)
