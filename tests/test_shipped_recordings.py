"""The calculator's proof, on every shipped recording, offline.

Under the rule of the server that made the recording (llama-server -> ``llamacpp``, configured from
the recorded flags), the predicted cached tokens equal the server's measured ``cached_tokens`` on
EVERY request: all sessions in recorded order, the fork, every counterfactual -- zero difference; a
request the server refused (its prompt over the slot's context) is predicted refused.
Also: the blocks tile every request; each counterfactual rebuilt from its history is the recorded
one, token for token; the refresh round breaks inside the memory body, with the tool definitions
after it.

Tokenization is cached per process (``calculator.prepare``), so this file re-renders each
recording once.
"""
import pytest

from prefixlab.cache import calculator, counterfactual
from prefixlab.cache.attribution import check_tiling
from prefixlab.paths import RECORDINGS as SHIPPED
from prefixlab.recording.format import find_recordings

RECORDINGS = find_recordings()
RULE_OF_SERVER = {"llama-server": "llamacpp"}


def test_recordings_are_shipped():
    assert RECORDINGS, "no recordings under data/recordings/"


@pytest.fixture(scope="module", params=RECORDINGS, ids=[p.name for p in RECORDINGS])
def replay(request):
    return calculator.prepare(request.param)


def server_rule(replay):
    kind = replay.recording.provenance["server"]["kind"]
    if kind not in RULE_OF_SERVER:
        pytest.skip(f"no rule for a server of kind {kind!r}")
    return RULE_OF_SERVER[kind]


def test_predicted_equals_measured_on_every_request(replay):
    rec = replay.recording
    rows = calculator.analyze(replay, server_rule(replay))
    assert [r.seq for r in rows] == [c.seq for c in rec.calls]
    assert all(r.measured is not None or r.refused is not None for r in rows), (
        "llama-server reports cached_tokens on every request it serves (and an error on one it refuses)")
    # a served request: predicted read == measured; a refused one: the rule refuses it too (Row.ok)
    differences = [(r.seq, r.session, r.round, r.read, r.measured, r.refused, r.predicted_refused)
                   for r in rows if not r.ok]
    assert differences == []
    kinds = {rec.session_info(r.session)["kind"] for r in rows}
    # the full T10 recording proves every kind of session; a variant recorded with
    # --no-counterfactuals (e.g. the small host cache) proves the main sessions and the fork
    wanted = {"main", "fork", "counterfactual"} if rec.path.name == "t10-smollm2-llamacpp" else {"main", "fork"}
    if rec.manifest["experiment"] == "T11":  # lesson A6·1: main sessions only (see test_t11_recording.py)
        wanted = {"main"}
    if rec.manifest["experiment"] == "T14":  # side lesson A6·R: main sessions only (see test_t14_recording.py)
        wanted = {"main"}
    if rec.manifest["experiment"] == "T12":  # lesson A6·3: main sessions only (see test_t12_recording.py)
        wanted = {"main"}
    if rec.manifest["experiment"] in ("A5-2", "A4-1", "A4-2", "A4-3", "A1", "A3-2", "A5-1-triggers", "A5-4", "A2-1", "A2-2", "A2-4", "A3-3"):  # A5·2: one main session per server setup;
        # A4·1: one-request main sessions only (chapters/a4/tests); A4·2: two days of main sessions per shape;
        # A4·3: one main session per shape of the history;
        # A1: one main session per server start; A3·2, A5·1's triggers, A5·4, A2·1, A2·2, A2·4, A3·3: one main session per variant
        wanted = {"main"}
    if rec.manifest["experiment"] in ("A7-1", "A7-2", "A7-3", "A7-4", "A7-4-parallel", "A8-3", "A8-3-waterfall"):  # A7, A8·3: parents and their children
        wanted = {"main", "child"}
    assert wanted <= kinds or rec.manifest.get("policy") == "live"


def test_a_small_host_cache_evicts_and_only_the_measured_state_size_predicts_it():
    # Recorded with --cache-ram 64: the byte limit binds. Predicting with a state size of 0 (the
    # old default) misses the evictions; the size measured on the server predicts every request.
    rec = calculator.load_recording(SHIPPED / "t10-cache-ram-64")
    assert rec.provenance["server"]["kv_state"]["per_token"] > 0
    assert calculator.llamacpp_config(rec).cache_ram_mib == 64
    measured = calculator.analyze(rec)
    assert all(r.read == r.measured for r in measured)
    unknown = calculator.analyze(rec, state_bytes_fixed=0, state_bytes_per_token=0)
    wrong = [(r.session, r.round) for r in unknown if r.read != r.measured]
    assert ("frozen-day1", 1) in wrong and all(r.read > r.measured for r in unknown if r.read != r.measured)


def test_blocks_tile_every_request(replay):
    for call, att in zip(replay.recording.calls, replay.attributions):
        check_tiling(att)
        assert len(att.ids) == call.prompt_tokens
        pos = 0
        for b in att.blocks:
            assert (b.start, b.char_start >= 0) == (pos, True)
            pos = b.end
        assert pos == call.prompt_tokens
        assert "".join(att.text[b.char_start:b.char_end] for b in att.blocks) == att.text


def test_every_counterfactual_is_rebuilt_and_predicted(replay):
    rec = replay.recording
    recorded = sorted(s["k"] for s in rec.manifest["sessions"] if s["kind"] == "counterfactual")
    if not recorded:
        pytest.skip("this recording has no counterfactuals")
    assert recorded == list(counterfactual.k_values(rec))
    results = counterfactual.compare_all(replay, server_rule(replay))
    assert [r.k for r in results] == recorded
    for r in results:
        assert r.identical_tokens, f"k={r.k}: built requests differ from the recorded ones"
        assert r.identical_requests
        assert [(x.round, x.read) for x in r.rows] == [(x.round, x.measured) for x in r.rows]
        # a fresh server per k: nothing cached at round 1; the round after k breaks in the memory body
        assert r.rows[0].read == 0
        after = next(x for x in r.rows if x.round == r.k + 1)
        assert after.break_block == "memory_body"


def refresh_rounds(rec):
    """(call, previous call of the same session) where the system message changed mid-session."""
    out = []
    for s in rec.manifest["sessions"]:
        if s["kind"] != "main":
            continue
        calls = rec.session_calls(s["id"])
        for prev, call in zip(calls, calls[1:]):
            if call.request["messages"][0] != prev.request["messages"][0]:
                out.append((call, prev))
    return out


def test_refresh_round_breaks_inside_the_memory_body(replay):
    rec = replay.recording
    if rec.manifest["experiment"] != "T10":
        pytest.skip("T11's system prompt changes by AGENTS.md edits, not memory (see test_t11_recording.py)")
    rounds = refresh_rounds(rec)
    assert rounds, "the refresh group must refresh its system prompt at least once"
    rows = {r.seq: r for r in calculator.analyze(replay, server_rule(replay))}
    note = counterfactual.remembered_notes(rec, rounds[0][0].session)[0]
    for call, _ in rounds:
        row = rows[call.seq]
        assert row.break_block == "memory_body"
        assert row.next_blocks[0] == "tools"  # the tool definitions come after the break
        assert row.before_break.endswith("\n\n") and note.startswith(row.after_break)
        att = replay.attributions[call.seq]
        assert row.read == att.block("memory_body").start


def test_sessions_are_replayed_in_recorded_order(replay):
    rec = replay.recording
    for epoch, indices in calculator.epochs(rec).items():
        times = [rec.calls[i].t for i in indices]
        assert times == sorted(times)


def test_append_never_breaks_and_after_tools_breaks_after_the_tools(replay):
    rec = replay.recording
    if not {"append", "after-tools"} <= {s["group"] for s in rec.manifest["sessions"]}:
        pytest.skip("this recording has no append / after-tools groups")
    rows = {r.seq: r for r in calculator.analyze(replay, server_rule(replay))}
    # append: within a session every request reads the whole previous request back, the write included
    for day in (1, 2):
        calls = rec.session_calls(f"append-day{day}")
        assert [c.cached_tokens for c in calls[1:]] == [c.prompt_tokens for c in calls[:-1]]
        assert len({c.request["messages"][0]["content"] for c in calls}) == 1
    # after-tools: the one round whose first user message changed breaks inside it, after the tools
    calls = rec.session_calls("after-tools-day1")
    changed = [c for prev, c in zip(calls, calls[1:]) if c.request["messages"][1] != prev.request["messages"][1]]
    assert len(changed) == 1 and changed[0].request["messages"][0] == calls[0].request["messages"][0]
    row, att = rows[changed[0].seq], replay.attributions[changed[0].seq]
    body = att.block("memory_body")
    assert row.break_block == "memory_body" and body.section == "message" and body.message == 1
    assert "tools" not in row.next_blocks and row.next_blocks[0] == "user#1"  # the task follows the memory
    assert att.block("tools").end < row.read == row.measured == body.start


def test_a7_4_parallel_children_carry_the_servers_times_and_the_long_child_is_refused_on_half_a_context():
    """A7·4: every request of the two-slots recording has the server's launch/release times and slot; its
    per-slot context is half of -c, and the long child's request over it is refused (predicted too)."""
    replay = calculator.prepare(SHIPPED / "a7-4-parallel-two-slots")
    manifest = replay.recording.manifest
    assert all({"launched", "done", "slot"} <= set(item) for item in manifest["order"])
    assert [s["n_ctx"] for s in replay.recording.provenance["server"]["slots"]] == [2048, 2048]
    rows = calculator.analyze(replay)
    refused = [r for r in rows if r.refused]
    assert len(refused) == 1 and refused[0].session == "long-child1" and refused[0].predicted_refused
    assert all(r.ok for r in rows)
