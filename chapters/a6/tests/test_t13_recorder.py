"""T13's recorder (lesson A6·4), offline: a fake server stands in for llama-server (not a result).

What must hold whatever the server answers: the forks are branches of day 1's file at the end of
every round, each on a server that has just seen day 1; the switch recording's two branches share
one file and take turns, and every request of the global order names its branch.
"""
from __future__ import annotations

import threading

import pytest
import yaml
from fake_server import FakeChatServer, completion

from miniagent.session_cli import ContinuedSession
from chapters.a6.paths import T10_DIR, T13_DIR
from prefixlab.recording.format import load
from chapters.a6.experiments.session_tree import Baton, ForkRecorder, SwitchRecorder, TakingTurns, switch_schedule

DAY1 = yaml.safe_load((T10_DIR / "script.yml").read_text(encoding="utf-8"))["day1"]
T13 = yaml.safe_load((T13_DIR / "script.yml").read_text(encoding="utf-8"))
PROVENANCE = {"server": {"kind": "external", "flags": []}, "model": {"name": "fake"},
              "chat_template": {"sha256": "x", "text": "x"}, "tokenizer": {"sha256": "x", "path": "x"}, "recorder": {}}


def _reply(body):
    return 200, completion({"role": "assistant", "content": "x"}, 100, 0)


@pytest.fixture(scope="module")
def forks(tmp_path_factory):
    out = tmp_path_factory.mktemp("t13") / "forks"
    with FakeChatServer(_reply) as server:
        ForkRecorder(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE, "local",
                     log=lambda line: None).record()
    return load(out)


@pytest.fixture(scope="module")
def switch(tmp_path_factory):
    out = tmp_path_factory.mktemp("t13") / "switch"
    with FakeChatServer(_reply) as server:
        SwitchRecorder(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE, "local", "one-slot",
                       log=lambda line: None).record()
    return load(out)


def test_a_fork_after_every_round_each_after_day1_on_its_own_server(forks):
    rounds = len(DAY1)
    ids = [s["id"] for s in forks.manifest["sessions"]]
    expected = ["day1", "fork-r1"] + [x for r in range(2, rounds) for x in (f"replay-r{r}", f"fork-r{r}")]
    assert ids == expected and forks.manifest["experiment"] == "T13"
    day1 = forks.session_calls("day1")
    for r in range(1, rounds):
        fork = forks.session_info(f"fork-r{r}")
        assert fork["file"] == "day1.jsonl" and fork["kind"] == "fork"
        assert fork["forked_from"]["after_round"] == r
        calls = forks.session_calls(f"fork-r{r}")
        assert len(calls) == len(T13["fork"]["turns"]) and {c.epoch for c in calls} == {r - 1}
        # the fork's first request is day 1's path up to the end of round r, then the fork's user message
        first = calls[0].request["messages"]
        assert first[-1] == {"role": "user", "content": T13["fork"]["user"]}
        assert first[:-1] == day1[r].request["messages"]  # round r+1's request holds exactly rounds 1..r
        if r > 1:  # a fresh server that got day 1's requests again, unchanged, just before the fork
            replay = forks.session_calls(f"replay-r{r}")
            assert forks.session_info(f"replay-r{r}")["replays"] == "day1"
            assert [c.request for c in replay] == [c.request for c in day1]
            assert {c.epoch for c in replay} == {r - 1}
            assert forks.calls.index(replay[-1]) + 1 == forks.calls.index(calls[0])


def test_the_fork_branches_hang_below_day1_in_one_file(forks):
    session = forks.files["day1.jsonl"]
    day1 = forks.session_path("day1")
    calls = [e for e in day1 if e["type"] == "model_call"]
    for r in range(1, len(DAY1)):
        fork = forks.session_info(f"fork-r{r}")
        at = fork["forked_from"]["entry"]
        assert at == calls[r]["parentId"]  # the last entry of round r: its tool result
        assert session.by_id[at]["message"]["role"] == "tool"
        path = forks.session_path(f"fork-r{r}")
        assert path[: len(session.path_to(at))] == session.path_to(at)
        # the fork keeps day 1's frozen system prompt (no refresh below the branch point)
        assert all(e["type"] != "system_refresh" for e in path)


def test_the_fork_works_on_the_repository_as_round_r_left_it(forks):
    # fork-r8 reads the parser after round 8's edit: the redone tool calls brought the copy there
    read = [e for e in forks.session_path("fork-r8") if e["type"] == "message" and e["message"]["role"] == "tool"]
    assert "-?\\d" in read[-1]["message"]["content"]
    read = [e for e in forks.session_path("fork-r7") if e["type"] == "message" and e["message"]["role"] == "tool"]
    assert "-?\\d" not in read[-1]["message"]["content"]


def test_switch_schedule():
    assert switch_schedule(4, 2, 1) == ["a", "a", "b", "a", "b", "a"]
    assert switch_schedule(3, 4, 1) == ["a", "a", "b", "a", "b", "b", "b"]


def test_switch_branches_share_one_file_and_take_turns(switch):
    sessions = {s["id"]: s for s in switch.manifest["sessions"]}
    assert list(sessions) == ["trunk", "branch-a", "branch-b"]
    assert {s["file"] for s in sessions.values()} == {"switch.jsonl"} and switch.manifest["setup"] == "one-slot"
    schedule = switch.manifest["schedule"]
    assert schedule == switch_schedule(len(DAY1), len(T13["switch"]["turns"]), T13["switch"]["after_round"])
    who = {"trunk": "a", "branch-a": "a", "branch-b": "b"}
    assert [who[c.session] for c in switch.calls] == schedule
    assert [c.session for c in switch.calls[:4]] == ["trunk", "branch-a", "branch-b", "branch-a"]
    assert [c.round for c in switch.session_calls("branch-a")] == list(range(2, len(DAY1) + 1))
    times = [c.t for c in switch.calls]
    assert times == sorted(times) and {c.epoch for c in switch.calls} == {0}


def test_switch_branch_b_is_forked_after_the_trunk(switch):
    file = switch.files["switch.jsonl"]
    at = switch.session_info("branch-b")["forked_from"]["entry"]
    assert switch.session_info("trunk")["leaf"] == at
    trunk = file.path_to(at)
    for sid in ("branch-a", "branch-b"):
        assert switch.session_path(sid)[: len(trunk)] == trunk
    b_first = switch.session_calls("branch-b")[0].request["messages"]
    assert b_first[-1] == {"role": "user", "content": T13["switch"]["user"]}
    assert b_first[:-1] == switch.session_calls("branch-a")[0].request["messages"]
    reloaded = ContinuedSession.open(switch.path / "switch.jsonl")
    assert reloaded.dropped is None and len(reloaded.entries) == len(file.entries)


def test_a_failing_branch_stops_the_other_with_a_clear_error():
    baton = Baton(["a", "b", "a"])
    errors = []

    class Boom:
        def complete(self, *args, **kwargs):
            raise RuntimeError("server down")

    class Fine:
        sent_at = []

        def complete(self, *args, **kwargs):
            return "ok"

    def run(name, policy, calls):
        turns = TakingTurns(policy, baton, name)
        try:
            turns.start()
            for _ in range(calls):
                turns.complete([])
            turns.finish()
        except Exception as err:  # noqa: BLE001
            errors.append((name, str(err)))
            baton.fail(err)

    threads = [threading.Thread(target=run, args=("a", Fine(), 2)), threading.Thread(target=run, args=("b", Boom(), 1))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    assert ("b", "server down") in errors
    assert any(name == "a" and "another branch failed: RuntimeError: server down" in e for name, e in errors)


def test_a_server_failing_mid_switch_stops_both_branches_and_marks_the_recording_incomplete(tmp_path, capsys):
    from prefixlab.recording.recorder import run_recording

    replies = [(200, completion({"role": "assistant", "content": "x"}, 100, 0))] * 5
    out = tmp_path / "switch"
    with FakeChatServer(replies) as server:  # the sixth request gets HTTP 500
        recorder = SwitchRecorder(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE, "local",
                                  "one-slot", log=lambda line: None)
        recorder.max_retries = 0
        assert run_recording("record_t13", recorder) == 1
    assert "is marked incomplete" in capsys.readouterr().err
    rec = load(out, allow_incomplete=True)
    assert rec.manifest["status"] == "incomplete" and "500" in rec.manifest["error"]


def test_the_command_never_overwrites_a_recording(tmp_path, capsys):
    from chapters.a6.experiments.session_tree import main

    (tmp_path / "t13-switch-one-slot").mkdir()
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--only", "t13-switch-one-slot"])
    assert "t13-switch-one-slot exists" in capsys.readouterr().err
