import inspect
import json
import os
import re
import resource
import time

import pytest

from miniagent.confined import ConfinedWorkspace
from miniagent.memory import MemoryStore
from miniagent.tools import OUTPUT_LIMIT, Toolbox, ToolError, Workspace, cap, schema_problem


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("print('hi')\n")
    return Workspace(root, command_timeout=2)


@pytest.fixture
def cws(ws):
    """The same workspace with A3·1's commands (confined.py)."""
    return ConfinedWorkspace(ws.root, command_timeout=2)


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt", "sub/../../x", "a/../b"])
def test_paths_that_escape_are_refused(ws, path):
    with pytest.raises(ToolError):
        ws.resolve(path)


def test_symlink_leading_outside_is_refused(ws, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    os.symlink(secret, ws.root / "link.txt")
    os.symlink(tmp_path, ws.root / "linkdir")
    with pytest.raises(ToolError, match="outside the workspace"):
        ws.read_file("link.txt")
    with pytest.raises(ToolError, match="outside the workspace"):
        ws.write_file("linkdir/new.txt", "x")
    assert not (tmp_path / "new.txt").exists()


def test_symlink_inside_the_workspace_is_fine(ws):
    os.symlink(ws.root / "app.py", ws.root / "alias.py")
    assert ws.read_file("alias.py") == "print('hi')\n"


def test_read_write_edit_list(ws):
    ws.write_file("pkg/mod.py", "x = 1\n")
    assert ws.edit_file("pkg/mod.py", "x = 1", "x = 2") == "Edited pkg/mod.py."
    assert ws.read_file("pkg/mod.py") == "x = 2\n"
    assert ws.list_files(".").splitlines() == ["app.py", "pkg/mod.py"]
    with pytest.raises(ToolError, match="occurs 0 times"):
        ws.edit_file("pkg/mod.py", "nope", "y")


def test_command_timeout_kills_the_command(ws):
    out = ws.run_command("echo started; sleep 30; echo never")
    assert "started" in out and "never" not in out and "timed out after 2 s" in out


def test_command_runs_in_the_workspace_and_reports_exit_code(ws):
    out = ws.run_command("ls; exit 3")
    assert "app.py" in out and "[exit code 3]" in out


def test_huge_output_is_capped(ws):
    out = ws.run_command("python3 -c \"print('x' * 100000)\"")
    assert len(out) < OUTPUT_LIMIT + 100 and "characters cut" in out
    assert cap("short") == "short"


def test_toolbox_turns_failures_into_messages(ws, tmp_path):
    box = Toolbox(ws, MemoryStore(tmp_path / "mem" / "MEMORY.md", char_limit=30))
    assert box.call("read_file", json.dumps({"path": "../x"})).startswith("error: '..' is not allowed")
    assert box.call("read_file", "{not json").startswith("error: arguments are not valid JSON")
    assert box.call("read_file", json.dumps({"file": "app.py"})).startswith("error: bad arguments for read_file")
    assert "unknown tool 'rm_rf'" in box.call("rm_rf", "{}")
    assert box.call("remember", json.dumps({"note": "short note"})).startswith("Saved to MEMORY.md")
    assert box.call("remember", json.dumps({"note": "a much longer note that will not fit"})).startswith(
        "error: Memory is full")


def test_tool_definitions_are_valid_openai_functions(ws, tmp_path):
    box = Toolbox(ws, MemoryStore(tmp_path / "MEMORY.md"))
    names = [d["function"]["name"] for d in box.definitions]
    assert names == ["list_files", "read_file", "write_file", "edit_file", "run_command", "remember"]
    for d in box.definitions:
        assert d["type"] == "function" and d["function"]["parameters"]["type"] == "object"


@pytest.mark.parametrize("name, arguments, problem", [
    ("remember", {"note": 5}, "'note' must be a string, not integer"),
    ("remember", {"note": None}, "'note' must be a string, not null"),
    ("write_file", {"path": "a.txt", "content": ["x"]}, "'content' must be a string, not array"),
    ("edit_file", {"path": "app.py", "old": "hi"}, "missing required argument 'new'"),
    ("read_file", {}, "missing required argument 'path'"),
])
def test_arguments_are_checked_against_the_schema_before_the_handler_runs(ws, tmp_path, name, arguments, problem):
    memory = MemoryStore(tmp_path / "MEMORY.md")
    box = Toolbox(ws, memory)
    assert box.call(name, json.dumps(arguments)) == f"error: bad arguments for {name}: {problem}"
    assert box.call(name, arguments) == f"error: bad arguments for {name}: {problem}"  # already parsed
    assert not memory.path.exists() and not (ws.root / "a.txt").exists()  # no handler ran


@pytest.mark.parametrize("arguments", ["[1, 2]", "null", '"app.py"'])
def test_arguments_that_are_not_an_object_are_refused(ws, tmp_path, arguments):
    box = Toolbox(ws, MemoryStore(tmp_path / "MEMORY.md"))
    assert box.call("read_file", arguments) == "error: bad arguments for read_file: arguments must be a JSON object"


def test_the_schema_check_covers_the_subset_the_tools_use():
    schema = {"type": "object", "properties": {"path": {"type": "string"}, "count": {"type": "integer"}},
              "required": ["path"], "additionalProperties": False}
    assert schema_problem({"path": "a", "count": 2}, schema) is None
    assert schema_problem({"path": "a", "count": True}, schema) == "'count' must be an integer, not boolean"
    assert schema_problem({"path": "a", "mode": "w"}, schema) == "unknown argument 'mode'; expected: path, count"
    # Without additionalProperties: false, JSON Schema allows extra keys.
    assert schema_problem({"path": "a", "mode": "w"}, {**schema, "additionalProperties": True}) is None


def test_each_definition_sits_on_its_handler(ws, tmp_path):
    box = Toolbox(ws, MemoryStore(tmp_path / "MEMORY.md"))
    for d in box.definitions:
        name = d["function"]["name"]
        handler = box.memory.remember if name == "remember" else getattr(ws, name)
        assert handler.definition is d
        params = d["function"]["parameters"]
        assert list(params["properties"]) == params["required"] == list(inspect.signature(handler).parameters)


# -- bad input and faults (issue 21) -------------------------------------------------------------

@pytest.mark.parametrize("tool, arguments", [
    ("write_file", {"path": "app.py", "content": "x = '\ud800'\n"}),
    ("edit_file", {"path": "app.py", "old": "hi", "new": "\ud800"}),
])
def test_text_that_cannot_be_encoded_leaves_the_file_untouched(ws, tmp_path, tool, arguments):
    box = Toolbox(ws, MemoryStore(tmp_path / "MEMORY.md"))
    result = box.call(tool, arguments)
    assert result.startswith("error: ") and "cannot be written as UTF-8" in result and "unchanged" in result
    assert (ws.root / "app.py").read_text() == "print('hi')\n"
    assert sorted(p.name for p in ws.root.iterdir()) == ["app.py"]  # no temporary file left behind


def test_a_write_replaces_the_file_atomically_and_keeps_its_mode(ws):
    (ws.root / "run.sh").write_text("echo old\n")
    os.chmod(ws.root / "run.sh", 0o755)
    ws.write_file("run.sh", "echo new\n")
    ws.edit_file("run.sh", "new", "newer")
    assert (ws.root / "run.sh").read_text() == "echo newer\n"
    assert (ws.root / "run.sh").stat().st_mode & 0o777 == 0o755
    assert sorted(p.name for p in ws.root.iterdir()) == ["app.py", "run.sh"]


def test_a_nul_byte_in_a_path_is_a_message(ws, tmp_path):
    box = Toolbox(ws, MemoryStore(tmp_path / "MEMORY.md"))
    for tool, arguments in [("read_file", {"path": "app\0.py"}), ("write_file", {"path": "a\0b", "content": "x"}),
                            ("list_files", {"path": "\0"})]:
        assert box.call(tool, arguments) == "error: a path may not contain a NUL byte: " + repr(arguments["path"])


def test_edit_file_on_a_binary_file_is_a_message(ws, tmp_path):
    (ws.root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    box = Toolbox(ws, MemoryStore(tmp_path / "MEMORY.md"))
    result = box.call("edit_file", {"path": "logo.png", "old": "PNG", "new": "GIF"})
    assert result.startswith("error: logo.png is not UTF-8 text (byte 0:") and "edit_file" in result
    assert (ws.root / "logo.png").read_bytes() == b"\x89PNG\r\n\x1a\n\xff\xfe"


def test_output_is_capped_while_it_is_read(ws):
    # 300 MB of output: kept whole in memory, the agent's process would grow by more than that.
    ws = ConfinedWorkspace(ws.root, command_timeout=120)
    grown_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = ws.run_command("yes | head -c 300000000; echo; echo the-end")
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - grown_before
    assert grown_kb < 50_000
    assert len(out) < OUTPUT_LIMIT + 200 and out.startswith("y\ny\n") and out.endswith("the-end\n\n[exit code 0]")
    cut = int(re.search(r"\n\[\.\.\. (\d+) bytes of output cut \.\.\.\]\n", out).group(1))
    assert 299_990_000 < cut < 300_000_000


@pytest.mark.parametrize("confined", [False, True])
def test_short_output_keeps_its_exact_text(ws, confined):
    # What the model gets for ordinary commands must not change (recorded requests depend on it),
    # and A1's run_command and A3·1's give the same text.
    ws = ConfinedWorkspace(ws.root) if confined else ws
    out = ws.run_command("printf 'a\\r\\nb\\rc\\n\\377'; echo; echo 中文")
    assert out == "a\nb\nc\n\ufffd\n中文\n\n[exit code 0]"


@pytest.mark.parametrize("command", ["ls; exit 3", "python3 -c \"print('x' * 100000)\"", "echo err >&2; echo out"])
def test_a1_and_a3_commands_answer_alike(ws, cws, command):
    assert ws.run_command(command) == cws.run_command(command)


def test_an_unexpected_argument_reads_the_same_for_a1_and_a3(ws, cws):
    # The recordings keep this text: the confined run_command answers under A1's name.
    for workspace in (ws, cws):
        assert Toolbox(workspace).call("run_command", {"command": "true", "required": "x"}) == (
            "error: bad arguments for run_command: Workspace.run_command() got an unexpected keyword argument "
            "'required'")


def test_a1_commands_are_not_confined(ws, monkeypatch):
    # What A3·1 closes: A1's run_command hands the command our whole environment.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert "sk-test" in ws.run_command("env")


def test_a_background_child_holding_the_pipe_does_not_defeat_the_timeout(cws):
    started = time.monotonic()
    out = cws.run_command("setsid sleep 20 & echo started")
    assert time.monotonic() - started < 5
    assert out.startswith("started\n") and "[exit code 0]" in out and "still held the output open" in out


def test_a_command_that_times_out_is_killed_with_its_whole_group(ws):
    started = time.monotonic()
    out = ws.run_command("(sleep 30; echo late > late.txt) & sleep 30")
    assert time.monotonic() - started < 5 and "timed out after 2 s" in out
    time.sleep(0.2)
    assert not (ws.root / "late.txt").exists()


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf")])
def test_a_command_timeout_that_is_not_a_positive_number_is_refused(tmp_path, timeout):
    with pytest.raises(ToolError, match="command timeout must be a positive number of seconds"):
        Workspace(tmp_path, command_timeout=timeout)


def test_a_setsid_child_that_left_the_group_is_killed_at_the_timeout(cws):
    marker = cws.root / "alive.txt"
    out = cws.run_command("setsid sh -c 'sleep 3; echo late > alive.txt' & sleep 30")
    assert "timed out after 2 s" in out
    time.sleep(1.5)  # the child would have written by now had it survived
    assert not marker.exists()


def test_secret_looking_variables_do_not_reach_a_command(cws, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-test")
    monkeypatch.setenv("DB_Password", "pw")
    monkeypatch.setenv("HARMLESS_SETTING", "kept")
    out = cws.run_command("env")
    assert "sk-test" not in out and "ghp-test" not in out and "=pw" not in out
    assert "HARMLESS_SETTING=kept" in out and "PATH=" in out


def test_every_command_carries_a_fresh_run_mark(cws):
    first, second = cws.run_command("echo $MINIAGENT_RUN"), cws.run_command("echo $MINIAGENT_RUN")
    assert len(first.split("\n")[0]) == 16 and first != second


def test_an_os_error_reaches_the_model_without_the_machines_path(ws, tmp_path):
    (ws.root / "locked").mkdir()
    (ws.root / "locked" / "f.txt").write_text("x")
    os.chmod(ws.root / "locked", 0o500)
    try:
        box = Toolbox(ws, MemoryStore(tmp_path / "MEMORY.md"))
        result = box.call("write_file", {"path": "locked/g.txt", "content": "y"})
    finally:
        os.chmod(ws.root / "locked", 0o700)
    if os.geteuid() == 0:  # root may write anyway; then there is no error to look at
        return
    assert result.startswith("error: ") and str(ws.root) not in result and "locked" in result


@pytest.mark.parametrize("tool, args", [
    ("read_file", {"path": "loop"}), ("read_file", {"path": "loop/x.txt"}), ("list_files", {"path": "loop"}),
    ("write_file", {"path": "loop", "content": "x"}), ("edit_file", {"path": "loop", "old": "a", "new": "b"}),
    ("list_files", {"path": "."})])
def test_a_symlink_loop_is_a_tool_error_not_a_traceback(tmp_path, tool, args):
    """Issue 48: a link that leads back to itself stopped the whole agent (RuntimeError in resolve)."""
    (tmp_path / "loop").symlink_to("other")
    (tmp_path / "other").symlink_to("loop")
    (tmp_path / "ok.txt").write_text("fine\n")
    result = Toolbox(Workspace(tmp_path)).call(tool, args)
    if args["path"] == ".":
        assert "ok.txt" in result
    else:
        assert result.startswith("error: ") and "symlink loop" in result


def test_a_file_that_is_not_utf8_is_reported_not_guessed(tmp_path):
    """Issue 48: read_file used to hand back replacement characters as if they were the file."""
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    result = Toolbox(Workspace(tmp_path)).call("read_file", {"path": "latin1.txt"})
    assert result.startswith("error: latin1.txt is not UTF-8 text (byte 3:") and "\ufffd" not in result
