"""The live model's data, offline: the benchmark's numbers add up and name the prompt we ship,
and the live recording is what the page says it is (every request's cached_tokens predicted exactly
is checked for all recordings in tests/test_shipped_recordings.py; byte-for-byte replay in tests/test_replay.py).
"""
import json

from prefixlab.cache import calculator
from prefixlab.paths import DATA, RECORDINGS
from prefixlab.recording.format import load
from prefixlab.serving.models import LIVE

from chapters.a1.experiments import live_run

BENCH = json.loads((DATA / "a1" / "live" / "bench.json").read_text(encoding="utf-8"))
MODEL = json.loads((DATA / "a1" / "live" / "model.json").read_text(encoding="utf-8"))
RECORDING = RECORDINGS / "a1-live-qwen2.5-coder-0.5b-llamacpp"


def test_the_benchmark_ran_on_the_pinned_model_with_the_shipped_prompt():
    assert BENCH["model"]["sha256"] == LIVE.sha256 == MODEL["sha256"]
    assert BENCH["settings"]["better_prompt"] == live_run.BETTER_PROMPT_FILE.read_text(encoding="utf-8")
    assert BENCH["settings"]["tasks"][0] == live_run.TASK
    for cell in BENCH["cells"]:
        assert sum(cell["counts"].values()) == cell["requests"] == len(cell["replies"])
        assert {r["kind"] for r in cell["replies"]} <= {"native", "text", "prose"}


def test_model_facts_match_the_pins():
    assert MODEL["size"] == MODEL["pinned"]["size"] == sum(p["size"] for p in MODEL["parts"])
    assert MODEL["gguf"]["general.architecture"] == "qwen2"
    assert MODEL["gguf"]["chat_template_renders_tools"] is True


def test_the_live_recording_is_live_complete_and_predicted():
    rec = load(RECORDING)
    assert rec.complete and rec.manifest["policy"] == "live"
    assert rec.provenance["model"]["sha256"] == LIVE.sha256
    assert [s["id"] for s in rec.manifest["sessions"]] == list(live_run.LiveRecorder.variants)
    rows = calculator.analyze(rec)
    assert rows and all(r.ok for r in rows)
