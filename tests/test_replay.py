"""Recordings cannot drift: today's code, fed the recorded answers, sends every recorded request again.

For every shipped recording (``data/recordings/*``) the recorder that made it runs again, offline,
exactly as a learner runs it against a server of their own (``--server-url``): its ``connect``
points at a fake OpenAI-compatible server that answers request *i* with the response recorded for
request *i* of the manifest's global order, and keeps every request body it received. Nothing in
the recorders is changed or stubbed; only the server is a fake, and ``restart`` just counts epochs.

"Byte for byte" means, for request *i*:

1. the request as sent -- ``json.loads`` of the HTTP body the fake server received -- and the
   recorded ``request`` give the same ``json.dumps(x, ensure_ascii=False)`` (``sort_keys`` off):
   same keys in the same order, same types (``0`` is not ``0.0``, ``null`` is not ``""``), every
   character of every string (system prompt, tool schemas, tool results, ids) the same; and
2. the HTTP body itself equals the recorded request serialised the way the client serialises it
   (``json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode("utf-8")``): the exact
   bytes the server would parse.

(1) is the contract: a recording keeps ``json.loads`` of the body it sent (miniagent/model.py).
(2) checks the wire too; if only (2) fails, the client library changed how it writes JSON, not
the request. The test also checks that the same number of requests went out, in the same
sessions and epochs, and that the manifest (sessions, variants, skills, schedule ...) is the same
but for entry ids, times and provenance.

The tools run for real, so their output must be what it was. One tool result depends on the
machine, not the code: ``python -m unittest`` prints "Ran 0 tests in 0.000s", and on a busy
machine the empty run can take half a millisecond ("0.001s"). The replay pins that clock
(``pinned_unittest_clock``: a ``sitecustomize`` for the Python processes the tools start) and puts
the test's own interpreter first on PATH, so ``python`` in a tool call is the course's Python
(runtime.txt: 3.11, as in the recordings; 3.12's unittest says "NO TESTS RAN" instead of "OK").

Which recorder made which recording is asked of the registered experiments (``recorder_for``).
A recording that cannot be replayed goes into ``CANNOT_REPLAY`` with the
reason (an explicit xfail); none is skipped silently.
"""
from __future__ import annotations

import json
import re
import subprocess
import time

import pytest
import helpers
from fake_server import FakeChatServer
from test_agent_provenance import git, provenance_problems, tree_hash_of_files

from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import find_recordings, load

SHIPPED = find_recordings(RECORDINGS)
CANNOT_REPLAY: dict[str, str] = {}  # recording name -> why it cannot be replayed (each becomes an xfail)


def _git_head() -> str | None:
    try:
        return git("rev-parse", "HEAD")
    except (OSError, subprocess.CalledProcessError):
        return None  # not a git checkout (a downloaded copy): no tree a reader could look up


def _full_history() -> bool:
    try:
        return git("rev-parse", "--is-shallow-repository") == "false"
    except (OSError, subprocess.CalledProcessError):
        return False


def pinned_to_git_problems(agent: dict) -> list[str]:
    """What the replay's own provenance.agent gets wrong, asked of git by this test (not of the
    function that wrote it): HEAD, HEAD's miniagent tree, and that tree's files hashed here."""
    head = _git_head()
    if head is None:
        return []
    problems = []
    # the commit may have moved on while the tests ran (a commit elsewhere): the tree is what must match
    try:
        at_commit = git("rev-parse", f"{agent.get('source_commit')}:miniagent")
    except subprocess.CalledProcessError:
        at_commit = None
        problems.append(f"source_commit {agent.get('source_commit')} is not in this repository")
    if agent.get("source_tree") != git("rev-parse", "HEAD:miniagent"):
        problems.append(f"source_tree {agent.get('source_tree')} is not git's tree of miniagent/ at HEAD")
    elif at_commit is not None and at_commit != agent["source_tree"]:
        problems.append(f"source_commit {agent['source_commit'][:12]} holds another miniagent tree")
    if agent.get("source_tree_basis") == "source_sha256" and agent.get("source_sha256") != tree_hash_of_files("HEAD"):
        problems.append("source_sha256 is not the hash of the files of HEAD's miniagent tree")
    return problems


def recorder_for(recording, out, connect, restart, log):
    """The recorder that made ``recording`` and its ``record`` options: asked of the registered
    experiment whose recorder records the manifest's ``experiment`` (each experiment module has
    ``replay_recorder``)."""
    from prefixlab.recording.experiments import experiments

    wanted = recording.manifest["experiment"]
    for experiment in experiments().values():
        module = experiment.load()
        if module.RECORDER.experiment == wanted:
            return module.replay_recorder(recording, out, connect, restart, log)
    raise AssertionError(f"{recording.path.name}: no registered experiment records {wanted!r}; "
                         "register it (or add it to CANNOT_REPLAY with the reason)")


def as_sent(request: dict) -> str:
    return json.dumps(request, ensure_ascii=False)


def on_the_wire(request: dict) -> bytes:
    return json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def first_difference(a: str, b: str, context: int = 120) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return (f"first difference at character {at} of {len(a)} (today) / {len(b)} (recorded):\n"
            f"  today:    …{a[max(0, at - context):at + context]!r}\n"
            f"  recorded: …{b[max(0, at - context):at + context]!r}")


def without_ids(manifest: dict) -> dict:
    """The manifest without what differs from run to run: entry ids, times, provenance."""
    sessions = []
    for info in manifest["sessions"]:
        info = {k: v for k, v in info.items() if k != "leaf"}
        if "forked_from" in info:
            info["forked_from"] = {k: v for k, v in info["forked_from"].items() if k != "entry"}
        if "child_of" in info:  # a child agent (A7): its file is named after its parent's child entry
            info["child_of"] = {k: v for k, v in info["child_of"].items() if k != "entry"}
            info["file"] = re.sub(r"\.children/[0-9a-f]+\.jsonl$", ".children/ID.jsonl", info["file"])
        sessions.append(info)
    rest = {k: v for k, v in manifest.items() if k not in ("created", "provenance", "sessions", "order")}
    return {**rest, "sessions": sessions,
            "order": [(item["session"], item["epoch"]) for item in manifest["order"]]}


@pytest.fixture
def pinned_unittest_clock():
    with helpers.pinned_unittest_clock():
        yield


def replay(recording, out):
    """Run the recording's recorder against recorded answers; (bodies received, manifest, error, seconds)."""
    # a refused request is answered as the server answered it: its HTTP status and error body
    responses = [(200, call.response) if call.error is None else (call.error["status"], call.error["body"])
                 for call in recording.calls]
    received: list[bytes] = []

    def answer(body):
        i = len(received) - 1  # the fake server appends the body before it asks for an answer
        if i >= len(responses):
            return 500, {"error": {"message": f"request {i} was never recorded (the recording has {len(responses)})"}}
        return responses[i]

    started = time.monotonic()
    with FakeChatServer(answer) as server:
        received = server.received
        recorder, options = recorder_for(recording, out, lambda: server.url, lambda epoch: epoch + 1,
                                         log=lambda line: None)
        try:
            manifest, error = recorder.record(**options), None
        except Exception as err:  # noqa: BLE001 -- reported below, after the requests that did go out
            manifest, error = recorder.manifest, err
    return list(received), manifest, error, time.monotonic() - started


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name, marks=[pytest.mark.xfail(
    reason=CANNOT_REPLAY[p.name], strict=True)] if p.name in CANNOT_REPLAY else []) for p in SHIPPED])
def test_todays_code_sends_every_recorded_request_byte_for_byte(path, tmp_path, pinned_unittest_clock):
    recording = load(path)
    received, manifest, error, seconds = replay(recording, tmp_path / path.name)
    for i, (body, call) in enumerate(zip(received, recording.calls)):
        today, recorded = as_sent(json.loads(body)), as_sent(call.request)
        where = f"{path.name}: request {i} (session {call.session}, round {call.round}, {call.kind})"
        assert today == recorded, f"{where} differs from the recording\n{first_difference(today, recorded)}"
        assert body == on_the_wire(call.request), (
            f"{where}: same request, but the client wrote other bytes on the wire (a client library change?)")
    assert error is None, f"{path.name}: the replay stopped after {len(received)} requests: {error!r}"
    assert len(received) == len(recording.calls), (
        f"{path.name}: today's code sent {len(received)} requests, the recording has {len(recording.calls)}")
    assert without_ids(manifest) == without_ids(recording.manifest)
    # provenance a reader can check: the recording's tree is in git history, and the replay's own
    # manifest names HEAD's miniagent tree (both asked of git here)
    if _full_history():
        rel = (path / "manifest.json").relative_to(RECORDINGS.parent.parent).as_posix()
        assert provenance_problems(rel, recording.manifest["provenance"]["agent"]) == []
    assert pinned_to_git_problems(manifest["provenance"]["agent"]) == []
    print(f"{path.name}: {len(received)} requests replayed in {seconds:.1f} s")


@pytest.mark.skipif(_git_head() is None, reason="not a git checkout: no tree to look up")
def test_a_replay_provenance_naming_another_tree_is_caught():
    from prefixlab.recording.agent_source import agent_provenance

    today = agent_provenance()
    assert pinned_to_git_problems(today) == []
    assert any("is not git's tree" in p for p in pinned_to_git_problems({**today, "source_tree": "0" * 40}))
    assert any("not in this repository" in p for p in pinned_to_git_problems({**today, "source_commit": "f" * 40}))
    wrong_hash = {**today, "source_sha256": "0" * 64, "source_tree_basis": "source_sha256"}
    assert any("not the hash" in p for p in pinned_to_git_problems(wrong_hash))


def test_every_shipped_recording_is_replayed_and_names_its_miniagent():
    names = {p.name for p in SHIPPED}
    assert {"t10-smollm2-llamacpp", "t10-cache-ram-64", "t11-smollm2-llamacpp", "t12-smollm2-llamacpp",
            "t13-forks-smollm2-llamacpp", "t14-smollm2-llamacpp"} <= names
    assert sum(name.startswith("t13-switch-") for name in names) == 4
    assert {"a5-1-overflow-smollm2-llamacpp", "a5-2-masking-reuse0-smollm2-llamacpp",
            "a5-2-masking-reuse256-smollm2-llamacpp"} <= names
    for path in SHIPPED:
        agent = load(path).provenance.get("agent")
        assert agent and agent["package"] == "miniagent" and len(agent["source_sha256"]) == 64, (
            f"{path.name}: provenance.agent must name the miniagent source that reproduces it")
