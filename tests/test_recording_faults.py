"""Broken recordings: every problem is one clear error naming the file, the entry or line and the field.

Each case damages a copy of a small shipped recording the way a hand edit, a lost file or an
interrupted copy would, and checks ``load`` and the three commands that read recordings
(``verify``, ``report``, ``compare``): a message that says where and what was expected, a non-zero
exit code, no traceback, and the damaged files left exactly as they were.
"""
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlab.paths import RECORDINGS
from prefixlab.presenting import report
from prefixlab.recording import compare, verify
from prefixlab.recording.format import RecordingError, load

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = RECORDINGS / "t13-switch-one-slot"  # small: one session file, 17 requests
FIRST_CALL = 3  # line of the first model_call entry in switch.jsonl


@pytest.fixture
def rec(tmp_path):
    target = tmp_path / "rec"
    shutil.copytree(SHIPPED, target)
    return target


def edit_manifest(rec, change):
    manifest = json.loads((rec / "manifest.json").read_text(encoding="utf-8"))
    change(manifest)
    (rec / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def edit_entry(rec, line, change):
    path = rec / "switch.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[line - 1])
    change(entry)
    lines[line - 1] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def digest(path: Path) -> dict:
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file()}


def commands_refuse(rec, capsys, *needles):
    """load raises, and verify / report / compare print one clear message and exit non-zero."""
    before = digest(rec) if rec.is_dir() else None
    with pytest.raises(RecordingError) as raised:
        load(rec)
    for needle in needles:
        assert needle in str(raised.value)
    for name, run in (("verify", lambda: verify.main([str(rec)])),
                      ("report", lambda: report.main([str(rec)])),
                      ("compare", lambda: compare.main([str(SHIPPED), str(rec)]))):
        code = run()
        out, err = capsys.readouterr()
        assert code != 0, name
        assert "Traceback" not in err, name
        for needle in needles:
            assert needle in err, (name, err)
    if before is not None:
        assert digest(rec) == before  # nothing was rewritten or lost
    return str(raised.value)


# -- the manifest -------------------------------------------------------------------------------------

def test_missing_chat_template_text(rec, capsys):
    edit_manifest(rec, lambda m: m["provenance"]["chat_template"].pop("text"))
    message = commands_refuse(rec, capsys, "manifest.json", "field provenance.chat_template.text is missing")
    assert "chat template" in message  # what was expected


def test_missing_tokenizer_path(rec, capsys):
    edit_manifest(rec, lambda m: m["provenance"]["tokenizer"].pop("path"))
    commands_refuse(rec, capsys, "manifest.json", "field provenance.tokenizer.path is missing")


def test_tokenizer_path_of_the_wrong_type(rec, capsys):
    edit_manifest(rec, lambda m: m["provenance"]["tokenizer"].__setitem__("path", 7))
    commands_refuse(rec, capsys, "manifest.json", "field provenance.tokenizer.path should be a string, got integer")


def test_server_flags_not_a_list(rec, capsys):
    # A string would be read one character at a time: silently wrong predictions.
    edit_manifest(rec, lambda m: m["provenance"]["server"].__setitem__("flags", "-np 1"))
    commands_refuse(rec, capsys, "manifest.json", "field provenance.server.flags should be an array")


def test_manifest_not_utf8(rec, capsys):
    data = (rec / "manifest.json").read_bytes().replace(b'"T13"', b'"T\xff13"')
    (rec / "manifest.json").write_bytes(data)
    commands_refuse(rec, capsys, "manifest.json", "not UTF-8")


def test_manifest_not_json(rec, capsys):
    (rec / "manifest.json").write_text("format: prefixlab-recording/1\n", encoding="utf-8")
    commands_refuse(rec, capsys, "manifest.json:1", "not valid JSON")


def test_leaf_naming_no_entry(rec, capsys):
    edit_manifest(rec, lambda m: m["sessions"][1].__setitem__("leaf", "deadbeef0000"))
    commands_refuse(rec, capsys, "manifest.json", "sessions[1]", "branch-a", "field leaf",
                    "no entry 'deadbeef0000' in switch.jsonl")


def test_a_session_listed_twice(rec, capsys):
    edit_manifest(rec, lambda m: m["sessions"].append(dict(m["sessions"][0])))
    commands_refuse(rec, capsys, "manifest.json", "sessions[3]", "field id", "'trunk' is listed twice")


def test_a_call_listed_twice_in_the_order(rec, capsys):
    edit_manifest(rec, lambda m: m["order"].append(dict(m["order"][0], t=99.0)))
    commands_refuse(rec, capsys, "manifest.json", "order[17]", "field call", "already order[0]")


def test_a_call_of_another_session(rec, capsys):
    # order[1] is branch-a's first call; claiming it for branch-b would move it to the wrong path
    edit_manifest(rec, lambda m: m["order"][1].__setitem__("session", "branch-b"))
    commands_refuse(rec, capsys, "manifest.json", "order[1]", "field call", "not on session 'branch-b'")


# -- the session files --------------------------------------------------------------------------------

def test_entry_without_type(rec, capsys):
    edit_entry(rec, FIRST_CALL, lambda e: e.pop("type"))
    commands_refuse(rec, capsys, f"switch.jsonl:{FIRST_CALL}", "field type is missing")


def test_prompt_tokens_details_as_a_list(rec, capsys):
    edit_entry(rec, FIRST_CALL, lambda e: e["response"]["usage"].__setitem__("prompt_tokens_details", [12]))
    commands_refuse(rec, capsys, f"switch.jsonl:{FIRST_CALL}",
                    "field response.usage.prompt_tokens_details should be an object, got array")


def test_a_message_that_is_not_an_object(rec, capsys):
    edit_entry(rec, FIRST_CALL, lambda e: e["request"]["messages"].__setitem__(1, "hello"))
    commands_refuse(rec, capsys, f"switch.jsonl:{FIRST_CALL}", "field request.messages[1] should be an object")


def test_a_tool_call_without_function(rec, capsys):
    line = 10  # third model_call: its request holds the assistant's earlier tool call
    def drop(entry):
        message = next(m for m in entry["request"]["messages"] if m.get("tool_calls"))
        del message["tool_calls"][0]["function"]
    edit_entry(rec, line, drop)
    commands_refuse(rec, capsys, f"switch.jsonl:{line}", ".tool_calls[0].function is missing")


def test_session_file_missing(rec, capsys):
    (rec / "switch.jsonl").unlink()
    commands_refuse(rec, capsys, "manifest.json", "sessions[0]", "field file", "switch.jsonl does not exist")


def test_a_truncated_line_in_the_middle(rec, capsys):
    path = rec / "switch.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5][:40]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    commands_refuse(rec, capsys, "switch.jsonl:6", "not a valid session entry")


# -- the directory ------------------------------------------------------------------------------------

def test_a_directory_that_does_not_exist(tmp_path, capsys):
    commands_refuse(tmp_path / "nope", capsys, "nope", "the directory does not exist")


def test_an_empty_directory(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    commands_refuse(tmp_path / "empty", capsys, "empty", "no manifest.json")


def test_a_manifest_given_instead_of_its_directory(rec, capsys):
    commands_refuse(rec / "manifest.json", capsys, "is a file", "the directory that holds manifest.json")


def test_the_folder_of_all_recordings_names_them(tmp_path, capsys):
    shutil.copytree(SHIPPED, tmp_path / "all" / "one")
    message = commands_refuse(tmp_path / "all", capsys, "no manifest.json")
    assert "one" in message.split("no manifest.json", 1)[1]  # it says which recordings it holds


# -- every shipped recording still loads, and the commands run as modules ----------------------------

def test_every_shipped_recording_passes_the_checks():
    for path in sorted(p.parent for p in RECORDINGS.glob("*/manifest.json")):
        assert load(path).calls


@pytest.mark.parametrize("command", ["verify", "report", "compare"])
def test_commands_as_modules_print_one_clear_line(rec, command):
    edit_manifest(rec, lambda m: m["provenance"]["chat_template"].pop("text"))
    args = [str(SHIPPED), str(rec)] if command == "compare" else [str(rec)]
    done = subprocess.run([sys.executable, "-m", f"prefixlab.{command}", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "field provenance.chat_template.text is missing" in done.stderr


# -- what only rendering and tokenizing find: verify and report ---------------------------------------

def render_commands_refuse(rec, capsys, *needles):
    before = digest(rec)
    for name, run in (("verify", lambda: verify.main([str(rec)])), ("report", lambda: report.main([str(rec)]))):
        code = run()
        err = capsys.readouterr().err
        assert code != 0 and "Traceback" not in err, (name, err)
        for needle in needles:
            assert needle in err, (name, err)
    assert digest(rec) == before


def test_a_chat_template_that_does_not_render(rec, capsys):
    edit_manifest(rec, lambda m: m["provenance"]["chat_template"].__setitem__("text", "{% if messages %}"))
    render_commands_refuse(rec, capsys, "provenance.chat_template.text", "Unexpected end of template")


def test_a_tokenizer_file_that_does_not_exist(rec, capsys):
    edit_manifest(rec, lambda m: m["provenance"]["tokenizer"].__setitem__("path", "data/tokenizers/nope.json"))
    render_commands_refuse(rec, capsys, "provenance.tokenizer.path", "data/tokenizers/nope.json", "does not exist")


def test_verify_checks_every_recording_it_is_given(rec, capsys):
    edit_manifest(rec, lambda m: m["provenance"]["tokenizer"].pop("path"))
    code = verify.main([str(rec), str(SHIPPED)])
    out, err = capsys.readouterr()
    assert code == 1
    assert "field provenance.tokenizer.path is missing" in err
    assert f"{SHIPPED}: 17 requests, token counts compared (the recording holds no ids), 0 mismatches" in out  # the good one is still checked
    assert "1 of 2 recordings could not be checked" in out


def test_verify_with_a_tokenizer_that_does_not_exist(capsys):
    with pytest.raises(SystemExit) as exit_info:
        verify.main([str(SHIPPED), "--tokenizer", "nope.json"])
    assert exit_info.value.code == 2 and "--tokenizer nope.json: no such file" in capsys.readouterr().err


# -- more of what a new user meets -------------------------------------------------------------------

def test_an_entry_id_that_is_not_a_string(rec, capsys):
    edit_entry(rec, 4, lambda e: e.__setitem__("id", ["x"]))
    commands_refuse(rec, capsys, "switch.jsonl:4", "field id should be a string")


def test_an_entry_id_used_twice(rec, capsys):
    path = rec / "switch.jsonl"
    last = len(path.read_text(encoding="utf-8").splitlines())
    edit_entry(rec, last, lambda e: e.__setitem__("id", "343912015f20"))  # the last entry has no children
    commands_refuse(rec, capsys, f"switch.jsonl:{last}", "field id", "'343912015f20' is already used on line 3")


def test_an_empty_session_file(rec, capsys):
    (rec / "switch.jsonl").write_text("", encoding="utf-8")
    commands_refuse(rec, capsys, "sessions[0]", "field file", "switch.jsonl is empty")


def test_an_incomplete_recording_says_why_it_stopped(rec, capsys):
    edit_manifest(rec, lambda m: m.update(status="incomplete", error="ModelError: HTTP 503"))
    message = commands_refuse(rec, capsys, "'incomplete', not complete", "ModelError: HTTP 503")
    assert "allow_incomplete=True" in message  # how to read it anyway, from Python


def test_a_truncated_last_line_in_a_complete_recording(rec, capsys):
    path = rec / "switch.jsonl"
    path.write_bytes(path.read_bytes()[:-40])  # an interrupted copy
    commands_refuse(rec, capsys, "switch.jsonl", "dropped an incomplete last line", "the manifest says complete")
