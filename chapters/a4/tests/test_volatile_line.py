"""A4·2's design and recorder, offline: the environment block's three shapes, the script's clock, and a
whole recording against a fake server (not a result: it checks what the requests carry)."""
import json
from datetime import datetime, timezone

import pytest

from fake_server import FakeChatServer, completion
from miniagent.session import Session
from miniagent.tools import Workspace
from miniagent.variants.volatile_line import SHAPES, VolatileLine, environment, listing
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER
from prefixlab.recording.format import load
from prefixlab.recording.recorder import base_provenance
from chapters.a4.experiments.volatile_top import ScriptClock, VolatileTopRecorder, instant

NOON = datetime(2026, 12, 1, 12, 34, 56, tzinfo=timezone.utc)


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "repo" / "src").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "repo" / "README.md").write_text("hi\n", encoding="utf-8")
    (tmp_path / "repo" / "src" / "__pycache__").mkdir()  # byte-code: never listed (not every Python writes it)
    (tmp_path / "repo" / "src" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0" * 9)
    return Workspace(tmp_path / "repo")


def test_the_block_shows_the_minute_and_every_file_or_only_the_date(workspace):
    clock = environment("clock-top", NOON, workspace)
    assert "Time: 2026-12-01 12:34 UTC" in clock and ":56" not in clock
    assert listing(workspace) == "README.md 3\nsrc/a.py 6"
    date = environment("date-only", NOON, workspace)
    assert date.endswith("Date: Tuesday, December 1, 2026") and "README" not in date and "12:34" not in date


def test_top_and_end_put_the_block_before_or_after_the_base_prompt(workspace):
    texts = {shape: VolatileLine(shape, "BASE", workspace, lambda: NOON).text() for shape in SHAPES}
    assert texts["clock-top"].startswith("# Environment") and texts["clock-top"].endswith("\n\nBASE")
    assert texts["clock-end"].startswith("BASE\n\n# Environment")
    assert texts["date-only"].startswith("BASE\n\n# Environment")
    with pytest.raises(ValueError, match="unknown shape"):
        VolatileLine("clock-middle", "BASE", workspace, lambda: NOON)


def test_the_system_prompt_is_rebuilt_only_when_the_block_changes(workspace, tmp_path):
    times = iter([NOON, NOON.replace(second=59), NOON.replace(minute=35)])
    step = VolatileLine("clock-end", "BASE", workspace, lambda: next(times))
    session = Session.open(tmp_path / "s.jsonl")
    assert step.start(session, "task") == "task"
    session.append("message", message={"role": "user", "content": "task"})
    step.before_call(session, 1, print)
    step.before_call(session, 2, print)      # same minute: nothing new
    step.before_call(session, 3, print)      # a new minute: a system_refresh entry
    kinds = [e["type"] for e in session.entries]
    assert kinds.count("system") == 1 and kinds.count("system_refresh") == 1
    assert "12:35" in session.messages()[0]["content"]


def test_the_script_clock_moves_once_per_round_and_counts_from_day_one_at_nine():
    origin = instant(datetime(2026, 12, 1).date(), "09:00:00")
    clock = ScriptClock(origin)
    clock.start_day(datetime(2026, 12, 2).date(), [{"at": "09:00:30"}])
    assert clock.now() == datetime(2026, 12, 2, 9, 0, 30, tzinfo=timezone.utc)
    assert clock.seconds() == 24 * 3600 + 30
    with pytest.raises(RuntimeError, match="no time"):
        clock.now()


def test_a_whole_recording_against_a_fake_server(tmp_path):
    out = tmp_path / "a4-2"
    with FakeChatServer(lambda body: (200, completion({"role": "assistant", "content": "x"}))) as fake:
        provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER)
        provenance["server"] = {"kind": "external", "url_host": "fake", "flags": [], "restarts": False}
        provenance["model"] = {"name": "local"}
        recorder = VolatileTopRecorder(out, lambda: fake.url, lambda epoch: epoch + 1, provenance, "local",
                                       log=lambda line: None)
        recorder.record()
        bodies = [json.loads(b) for b in fake.received]
    rec = load(out)
    assert rec.complete and rec.manifest["between_days_s"] == 0
    assert [s["id"] for s in rec.manifest["sessions"]] == [f"{s}-day{d}" for s in SHAPES for d in (1, 2)]
    assert {c.epoch for c in rec.calls} == {0, 1, 2}  # each shape on a fresh server
    per_session = {s["id"]: len(rec.session_calls(s["id"])) for s in rec.manifest["sessions"]}
    assert min(per_session.values()) >= 8
    systems = [b["messages"][0]["content"] for b in bodies]
    assert systems[0].startswith("# Environment\n\nTime: 2026-12-01 09:00 UTC")
    assert "Date: Wednesday, December 2, 2026" in systems[-1]
    # the day-1 edit of units/convert.py shows in the listing of the next round (578 bytes before it, 580 after)
    top_day1 = systems[:per_session["clock-top-day1"]]
    assert "units/convert.py 578" in top_day1[4] and "units/convert.py 580" in top_day1[5]
    times = [o["t"] for o in rec.manifest["order"]]
    assert times[0] == 5 and times[per_session["clock-top-day1"]] == 24 * 3600 + 75 * 60  # day 2 at 10:15
