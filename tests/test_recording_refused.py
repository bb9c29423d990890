"""A request the server refuses (HTTP 400 with a JSON error) is kept: the request as sent and the error."""
import json

import pytest

from miniagent.model import ModelError
from prefixlab.recording.chat_client import RecordingChatModel, RequestRefused

from fake_server import FakeChatServer

OVER = {"error": {"code": 400, "message": "request (2110 tokens) exceeds the available context size (2048 tokens), "
                  "try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 2110, "n_ctx": 2048}}


def test_a_refused_request_carries_the_request_as_sent_and_the_servers_error():
    with FakeChatServer([(400, OVER)]) as server:
        model = RecordingChatModel(server.url, "local", log=lambda line: None)
        with pytest.raises(RequestRefused, match="exceeds the available context size") as caught:
            model.complete([{"role": "user", "content": "hi"}], max_tokens=1, temperature=0)
    assert len(server.received) == 1  # never retried
    assert caught.value.request == json.loads(server.received[0])
    assert caught.value.error == {"status": 400, "body": OVER}


@pytest.mark.parametrize("status, body", [(400, b"not json"), (400, {"message": "no error object"}),
                                          (503, {"error": {"message": "busy"}})])
def test_other_errors_pass_through_as_they_are(status, body):
    with FakeChatServer([(status, body)]) as server:
        model = RecordingChatModel(server.url, "local", log=lambda line: None)
        with pytest.raises(ModelError) as caught:
            model.complete([{"role": "user", "content": "hi"}])
    assert not isinstance(caught.value, RequestRefused)


# -- in a recording: the format, verify, the calculator, report and compare ---------------------------

import shutil  # noqa: E402

from prefixlab.cache import calculator  # noqa: E402
from prefixlab.paths import RECORDINGS  # noqa: E402
from prefixlab.presenting import report  # noqa: E402
from prefixlab.recording import compare, verify  # noqa: E402
from prefixlab.recording.format import RecordingError, load  # noqa: E402

SHIPPED = RECORDINGS / "a5-1-overflow-smollm2-llamacpp"  # its 4th request (seq 3) was refused


@pytest.fixture
def copy(tmp_path):
    target = tmp_path / SHIPPED.name
    shutil.copytree(SHIPPED, target)
    return target


def edit_refused(path, change):
    """Apply ``change`` to the refused model_call entry of the copy's session file."""
    file = path / "overflow.jsonl"
    lines = file.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        entry = json.loads(line)
        if entry["type"] == "model_call" and "error" in entry:
            change(entry)
            lines[i] = json.dumps(entry, ensure_ascii=False)
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_refused_call_reads_as_refused():
    call = load(SHIPPED).calls[3]
    assert call.refused.startswith("request (2070 tokens) exceeds the available context size (2048 tokens)")
    assert (call.prompt_tokens, call.cached_tokens, call.response, call.timings) == (2070, None, None, None)
    assert all(c.refused is None for c in load(SHIPPED).calls if c.seq != 3)


@pytest.mark.parametrize("change, field", [
    (lambda e: e["error"].pop("status"), "error.status is missing"),
    (lambda e: e["error"].update(status=500), "error.status should be a 4xx status"),
    (lambda e: e["error"].update(status=True), "error.status should be"),
    (lambda e: e["error"].update(body="request too long"), "error.body should be"),
    (lambda e: e["error"]["body"].pop("error"), "error.body.error is missing"),
    (lambda e: e["error"]["body"]["error"].pop("message"), "error.body.error.message is missing"),
    (lambda e: e["error"]["body"]["error"].pop("type"), "error.body.error.type is missing"),
    (lambda e: e["error"]["body"]["error"].update(n_prompt_tokens="2070"), "error.body.error.n_prompt_tokens should be"),
    (lambda e: e["error"]["body"]["error"].update(n_prompt_tokens=0), "n_prompt_tokens should be at least 1"),
    (lambda e: e.update(response={"usage": {"prompt_tokens": 2070}}), "either a response or an error, not both"),
])
def test_a_malformed_error_is_a_clear_error_naming_file_line_and_field(copy, change, field):
    edit_refused(copy, change)
    with pytest.raises(RecordingError, match=r"overflow.jsonl:\d+: .*" + field.replace("(", r"\(")):
        load(copy)


def test_verify_compares_a_refused_request_with_the_servers_count(copy):
    assert verify.check(load(SHIPPED)) == []
    edit_refused(copy, lambda e: e["error"]["body"]["error"].update(n_prompt_tokens=2069))
    mismatch, = verify.check(load(copy))
    assert (mismatch.seq, mismatch.ours, mismatch.server) == (3, 2070, 2069)


def test_a_refusal_matches_only_a_refusal():
    rows = calculator.analyze(SHIPPED)
    assert rows[3].ok and rows[3].refused and rows[3].predicted_refused and rows[3].measured is None
    summary = calculator.summarize(rows)
    assert (summary.measured, summary.agree, summary.differ, summary.refused) == (5, 5, 0, 1)
    # a larger context: the rule serves what the server refused -> a mismatch (and the retry reads more)
    wider = calculator.analyze(SHIPPED, n_ctx=4096)
    assert not wider[3].ok and wider[3].refused and wider[3].predicted_refused is None
    # a smaller one: the rule refuses what the server served -> a mismatch
    narrower = calculator.analyze(SHIPPED, n_ctx=1024)
    assert not narrower[2].ok and narrower[2].predicted_refused and narrower[2].refused is None
    assert calculator.summarize(narrower).differ >= 1


def test_report_shows_refused_rows_readably(capsys):
    assert report.main([str(SHIPPED)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.strip().startswith("3 overflow"))
    assert row.split()[4:6] == ["refused", "refused"] and row.split()[-1] == "yes"
    assert "#3 overflow round 4: server: request (2070 tokens) exceeds" in out
    assert "(1 refused by the server), 5 predicted exactly, 0 differ" in out


def test_compare_sees_a_refusal_that_became_an_answer(copy):
    assert compare.compare(load(SHIPPED), load(copy)) == []
    edit_refused(copy, lambda e: e.update(response={"usage": {"prompt_tokens": 2070, "prompt_tokens_details":
                                                              {"cached_tokens": 1535}}}) or e.pop("error"))
    diff, = compare.compare(load(SHIPPED), load(copy))
    assert "2070/refused (request (2070 tokens)" in diff and diff.endswith("vs 2070/1535")


def test_one_thread_announces_the_wait_while_recording(capfd):
    """The recorder's own announcer (to its log) is the only one: miniagent's stderr line is off."""
    import time

    answer = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}

    def slowly(body):
        time.sleep(0.35)
        return 200, answer

    lines = []
    with FakeChatServer(slowly) as server:
        model = RecordingChatModel(server.url, "local", log=lines.append, progress_every=0.1)
        assert model.chat.progress is None
        model.chat.progress_every = 0.05  # were it on, miniagent's line would show on stderr
        model.complete([{"role": "user", "content": "hi"}], max_tokens=1, temperature=0)
    assert lines and all("waiting for the server" in line for line in lines)
    assert "waiting" not in capfd.readouterr().err
