"""A2·4: the course's MCP server on stdio, miniagent's opt-in client, and what a broken server gives."""
from __future__ import annotations

import json
import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest

from miniagent.cli import main
from miniagent.loop import run_task
from miniagent.mcp_tools import MCPError, add_mcp, definition
from miniagent.memory import MemoryStore
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox, Workspace

from prefixlab.paths import REPO_ROOT, TOY_REPO
from tests.helpers import ScriptedModel, answer, tool_call

HERE = Path(__file__).resolve().parent
SERVER = REPO_ROOT / "chapters" / "a2" / "mcp_server.py"
PY = shlex.quote(sys.executable)


def course_server(*options: str, root: Path = TOY_REPO) -> str:
    return " ".join([PY, shlex.quote(str(SERVER)), "--root", shlex.quote(str(root)), *options])


def bad_server(mode: str) -> str:
    return f"{PY} {shlex.quote(str(HERE / 'mcp_bad_servers.py'))} {mode}"


def toolbox(tmp_path: Path) -> Toolbox:
    return Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "home" / "MEMORY.md"))


def test_the_course_server_starts_on_stdio_and_lists_its_tools_after_miniagents(tmp_path):
    tools = add_mcp(toolbox(tmp_path), [course_server()])
    try:
        names = [d["function"]["name"] for d in tools.definitions]
        assert names[-3:] == ["run_checks", "list_checks", "search"]
        assert names[:-3] == [d["function"]["name"] for d in toolbox(tmp_path).definitions]
        search = tools.definitions[-1]["function"]
        assert search["parameters"]["required"] == ["pattern"] and "regular expression" in search["description"]
    finally:
        tools.close()


def test_a_call_goes_to_the_server_and_its_text_is_the_result(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(TOY_REPO, repo)
    tools = add_mcp(toolbox(tmp_path), [course_server(root=repo)])
    try:
        checks = tools.call("run_checks", "{}")
        assert "3 of 5 checks pass" in checks and checks.endswith("[exit code 2]")
        assert "units/convert.py:7: def parse_temperature(text):" in tools.call("search", '{"pattern": "^def "}')
        assert not list(repo.rglob("__pycache__"))  # the checks leave no bytecode behind
        refused = "error: bad arguments for search: 'pattern' must be a string, not integer"
        assert tools.call("search", '{"pattern": 7}') == refused  # checked before it reaches the server
        assert "repo/tools/check.py" in tools.call("list_files", '{"path": "."}')  # miniagent's own still run
    finally:
        tools.close()


def test_tools_list_changed_shows_up_in_the_next_requests_tool_list(tmp_path):
    tools = add_mcp(toolbox(tmp_path), [course_server("--add-after", "1")])
    try:
        before = [d["function"]["name"] for d in tools.definitions]
        tools.call("list_checks", "{}")
        time.sleep(0.2)  # the notification arrives right after the call's result
        after = [d["function"]["name"] for d in tools.definitions]
        assert after == before + ["show_check"]
        assert tools.call("show_check", '{"name": "parse negative"}').startswith('("parse negative"')
    finally:
        tools.close()


def test_two_servers_add_their_tools_in_the_order_given_and_a_name_taken_twice_is_refused(tmp_path):
    tools = add_mcp(toolbox(tmp_path), [course_server("--tools", "run_checks"), course_server("--tools", "search")])
    try:
        assert [d["function"]["name"] for d in tools.definitions][-2:] == ["run_checks", "search"]
    finally:
        tools.close()
    with pytest.raises(MCPError, match="offers 'search', a name another tool has"):
        add_mcp(toolbox(tmp_path), [course_server("--tools", "search"), course_server("--tools", "search")])


@pytest.mark.parametrize("mode, message", [
    ("die-on-list", "tools/list failed"),
    ("hang-on-list", "did not answer tools/list within 2 s"),
    # the SDK checks the schema's shape itself (pydantic); definition() below checks what it lets through
    ("bad-schema", r"tools/list failed: ValidationError: .*inputSchema\.properties\.pattern"),
    ("not-a-schema", r"tools/list failed: ValidationError: .*inputSchema"),
    ("bad-name", "lists a tool named 'run checks!'"),
])
def test_a_server_that_dies_hangs_or_lists_a_bad_tool_is_one_clear_error(tmp_path, mode, message):
    with pytest.raises(MCPError, match=message):
        add_mcp(toolbox(tmp_path), [bad_server(mode)], timeout=2)


def test_a_command_that_is_not_there_or_exits_at_once_is_a_clear_error(tmp_path):
    with pytest.raises(MCPError, match="did not start: FileNotFoundError"):
        add_mcp(toolbox(tmp_path), ["no-such-mcp-server-here"], timeout=5)
    started = time.monotonic()
    with pytest.raises(MCPError, match="did not start"):
        add_mcp(toolbox(tmp_path), ["false"], timeout=20)
    assert time.monotonic() - started < 10  # not the whole timeout: its exit is noticed


@pytest.mark.parametrize("mode, message", [("die-on-call", "tools/call ping failed"),
                                           ("hang-on-call", "did not answer tools/call ping within 2 s")])
def test_a_server_that_dies_or_hangs_in_a_call_is_an_error_result_and_the_session_goes_on(tmp_path, mode, message):
    tools = add_mcp(toolbox(tmp_path), [bad_server(mode)], timeout=2)
    session = Session.open(tmp_path / "s.jsonl")
    model = ScriptedModel([tool_call("c1", "ping"), answer("done")])
    try:
        assert run_task("go", model=model, toolbox=tools, session=session, steps=[FixedPrompt("sys")]) == "done"
    finally:
        tools.close()
    result = [m for m in Session.open(tmp_path / "s.jsonl").messages() if m["role"] == "tool"]
    assert len(result) == 1 and result[0]["content"].startswith("error: MCP server") and message in result[0]["content"]


def test_the_cli_stops_with_one_error_and_the_session_file_loses_nothing(tmp_path, capsys):
    session = tmp_path / "s.jsonl"
    Session.open(session).append("message", message={"role": "user", "content": "earlier work"})
    before = session.read_bytes()
    code = main(["task", "-w", str(tmp_path), "--server", "http://127.0.0.1:9/v1", "--session", str(session),
                 "--memory", str(tmp_path / "m" / "MEMORY.md"), "--mcp", bad_server("bad-schema")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and err[0].startswith("miniagent: error: MCP server")
    assert session.read_bytes() == before


def test_definition_takes_the_servers_schema_as_it_is():
    tool = {"name": "t", "description": "d", "inputSchema": {"type": "object", "title": "tArguments"}}
    assert definition(tool, "s") == {"type": "function", "function": {
        "name": "t", "description": "d", "parameters": {"type": "object", "title": "tArguments"}}}
    assert json.dumps(definition({**tool, "description": None}, "s")["function"]["description"]) == '""'


@pytest.mark.parametrize("schema, message", [
    ({"type": "array"}, "not a JSON object schema"),
    ({"type": "object", "properties": {"pattern": "string"}}, "properties are not an object of schemas"),
    ({"type": "object", "required": "pattern"}, "required is not a list of names"),
])
def test_definition_refuses_a_schema_the_arguments_cannot_be_checked_against(schema, message):
    with pytest.raises(MCPError, match=message):
        definition({"name": "t", "inputSchema": schema}, "s")


def test_the_mcp_data_file_is_what_the_server_lists_and_the_code_counts_today():
    from chapters.a2 import mcp_costs
    data = mcp_costs.stored()
    assert mcp_costs.list_server_tools() == data["definitions"], "run python -m chapters.a2.mcp_costs"
    assert json.loads(json.dumps(mcp_costs.measure())) == data, "run python -m chapters.a2.mcp_costs"
