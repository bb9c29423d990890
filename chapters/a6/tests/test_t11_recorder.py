"""T11's recorder (lesson A6·1), offline: a fake server stands in for llama-server (not a result).

What must hold whatever the server answers: the four variants and their sessions, the rule in
exactly the place each variant puts it, one compaction per day 1 whose summary request is a
request of the recording (in the global order, read back by ``load`` as a call of kind
``compaction`` with the round it comes before), and the AGENTS.md edit reaching the prompt when
each variant says it should.
"""
from __future__ import annotations

import pytest
import yaml
from fake_server import FakeChatServer, completion

from chapters.a6.paths import T11_DIR
from prefixlab.recording.format import load
from chapters.a6.experiments.instruction_files import VARIANTS, T11Recorder

SCRIPT = yaml.safe_load((T11_DIR / "script.yml").read_text(encoding="utf-8"))
RULE = SCRIPT["rule"]


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    def reply(body):
        return 200, completion({"role": "assistant", "content": "a summary " * 40}, 100, 0)

    out = tmp_path_factory.mktemp("t11") / "rec"
    provenance = {"server": {"kind": "external", "flags": []}, "model": {"name": "fake"},
                  "chat_template": {"sha256": "x", "text": "x"}, "tokenizer": {"sha256": "x", "path": "x"},
                  "recorder": {}}
    with FakeChatServer(reply) as server:
        T11Recorder(out, lambda: server.url, lambda epoch: epoch + 1, provenance, "local",
                    log=lambda line: None).record()
    return load(out)


def system(call):
    return call.request["messages"][0]["content"]


def test_variants_sessions_and_epochs(recording):
    ids = [s["id"] for s in recording.manifest["sessions"]]
    assert ids == ["message-day1", "message-day2", "agents-day1", "agents-day2", "edit-frozen-day1",
                   "edit-reload-day1"]
    assert recording.manifest["experiment"] == "T11" and recording.manifest["rule"] == RULE
    assert sorted({c.epoch for c in recording.calls}) == list(range(len(VARIANTS)))
    assert all(s["group"] == "frozen" and s["kind"] == "main" for s in recording.manifest["sessions"])


def test_each_day1_is_compacted_once_and_the_summary_request_is_a_call(recording):
    for variant in VARIANTS:
        calls = recording.session_calls(f"{variant}-day1")
        kinds = [c.kind for c in calls]
        assert kinds.count("compaction") == 1
        summary = calls[kinds.index("compaction")]
        after = calls[kinds.index("compaction") + 1]
        assert summary.round == after.round  # the compaction comes just before that round's call
        assert "tools" not in summary.request  # the summariser offers no tools
        assert after.request["messages"][1]["content"].startswith("# Summary of the earlier conversation")
        assert [c.round for c in calls if c.kind == "model_call"] == list(range(1, len(SCRIPT["day1"]) + 1))


def test_the_rule_is_where_the_variant_puts_it(recording):
    first = {v: recording.session_calls(f"{v}-day1")[0] for v in VARIANTS}
    assert first["message"].request["messages"][1]["content"].endswith("\n\n" + RULE)
    assert RULE not in system(first["message"])
    assert f"- {RULE}" in system(first["agents"])
    assert all(RULE not in str(first[v].request["messages"]) for v in ("edit-frozen", "edit-reload"))
    # day 2 of variant message: the rule is nowhere; of variant agents: in the system prompt
    assert RULE not in str(recording.session_calls("message-day2")[0].request["messages"])
    assert RULE in system(recording.session_calls("agents-day2")[0])


def test_the_edit_reaches_the_prompt_when_each_variant_reads_agents_md(recording):
    edit_round = SCRIPT["edit_after_round"]
    reload_calls = [c for c in recording.session_calls("edit-reload-day1") if c.kind == "model_call"]
    assert [RULE in system(c) for c in reload_calls] == [c.round > edit_round for c in reload_calls]
    frozen_calls = recording.session_calls("edit-frozen-day1")
    compaction = next(c for c in frozen_calls if c.kind == "compaction")
    assert [RULE in system(c) for c in frozen_calls if c.kind == "model_call"] == [
        c.round >= compaction.round for c in frozen_calls if c.kind == "model_call"]
    info = recording.session_info("edit-frozen-day1")
    assert info["agents_md_edit"]["during_round"] == edit_round
