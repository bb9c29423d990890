"""python -m miniagent reaches what the book taught (issue 40): approval (A3·2), paging and the edit
guard (A2·3), masking (A5·2), each an option; approval asks by default and fails closed."""
import io
import json

import pytest

from miniagent.cli import main, parse_args
from miniagent.paging import Pager
from miniagent.confined import ConfinedWorkspace

from fake_server import FakeChatServer, completion


class Terminal(io.StringIO):
    """stdin as a person at a terminal who types these lines."""

    def isatty(self):
        return True


def call(name, n=1, **args):
    tool_call = {"id": f"c{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    return 200, completion({"role": "assistant", "content": None, "tool_calls": [tool_call]})


DONE = (200, completion({"role": "assistant", "content": "done"}))


def run(tmp_path, replies, *options):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    with FakeChatServer(replies) as srv:
        code = main(["task", "-w", str(repo), "--server", srv.url, "--memory", str(tmp_path / "M.md"),
                     "--session", str(tmp_path / "s.jsonl"), *options])
    return code, repo, [json.loads(body) for body in srv.received]


def tool_results(request):
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_help_lists_every_capability_the_book_teaches(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = capsys.readouterr().out
    for option in ("--text-calls", "--call-retries", "--paging", "--edit-guard", "--sandbox", "--approval",
                   "--allow", "--compact-at", "--mask", "--mode", "--skills", "--fork", "--children", "--budget"):
        assert option in text, option


def test_ask_puts_the_question_at_the_terminal_and_a_no_refuses(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", Terminal("no\ny\n"))
    replies = [call("run_command", 1, command="touch first"), call("run_command", 2, command="touch second"), DONE]
    code, repo, sent = run(tmp_path, replies, "--approval", "ask")
    err = capsys.readouterr().err
    assert code == 0
    assert err.count("miniagent wants to run the command 'touch first'. Allow it? [y/N] ") == 1
    assert "'touch second'. Allow it?" in err
    assert not (repo / "first").exists() and (repo / "second").exists()
    refused, ran = tool_results(sent[-1])
    assert refused == "error: the user did not approve this run_command call; it did not run"
    assert ran.startswith("[exit code 0]") or "exit code 0" in ran


@pytest.mark.parametrize("typed", ["", "n\n", "yes please\n", "nope\n"])
def test_anything_but_y_or_yes_at_the_terminal_is_a_no(tmp_path, monkeypatch, typed):
    monkeypatch.setattr("sys.stdin", Terminal(typed))
    code, repo, sent = run(tmp_path, [call("write_file", path="a.txt", content="x"), DONE])
    assert code == 0 and not (repo / "a.txt").exists()
    assert "did not approve" in tool_results(sent[-1])[0]


def test_the_default_with_no_terminal_refuses_a_change_and_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))  # not a terminal: nobody is asked, "y" is not read
    code, repo, sent = run(tmp_path, [call("write_file", path="a.txt", content="x"), DONE])
    assert code == 0 and not (repo / "a.txt").exists()
    assert "miniagent: approval: refused to write 1 characters to 'a.txt': stdin is not a terminal" in \
        capsys.readouterr().err
    assert "did not approve" in tool_results(sent[-1])[0]


def test_reading_runs_without_asking(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", Terminal(""))
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.txt").write_text("hello\n")
    code, _, sent = run(tmp_path, [call("read_file", path="a.txt"), DONE])
    assert code == 0 and tool_results(sent[-1]) == ["hello\n"] and "Allow it?" not in capsys.readouterr().err


def test_auto_runs_and_never_refuses(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", Terminal(""))
    (tmp_path / "auto").mkdir(), (tmp_path / "never").mkdir()
    code, repo, _ = run(tmp_path / "auto", [call("write_file", path="a.txt", content="x"), DONE], "--approval", "auto")
    assert code == 0 and (repo / "a.txt").read_text() == "x"
    replies = [call("write_file", path="b.txt", content="x"), DONE]
    code, repo, sent = run(tmp_path / "never", replies, "--approval", "never")
    assert code == 0 and not (repo / "b.txt").exists()
    assert tool_results(sent[-1])[0].startswith("error: write_file needs approval")


def test_an_allow_rule_runs_what_it_covers_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    replies = [call("run_command", 1, command="touch ok"), call("run_command", 2, command="touch ok; touch bad"), DONE]
    code, repo, sent = run(tmp_path, replies, "--allow", "run_command: touch ok")
    assert code == 0 and (repo / "ok").exists() and not (repo / "bad").exists()


@pytest.mark.parametrize("rule", ["run_command:", ":ls", ""])
def test_an_allow_rule_that_names_nothing_is_one_clear_error(tmp_path, capsys, rule):
    code, _, sent = run(tmp_path, [DONE], "--allow", rule)
    err = capsys.readouterr().err
    assert code == 2 and sent == [] and len(err.splitlines()) == 1
    assert err.startswith(f"miniagent: error: --allow: allow-list rule {rule!r}: ")


def test_the_default_request_is_the_same_under_every_approval_policy(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    bodies = []
    for policy in ("ask", "auto", "never"):
        with FakeChatServer([DONE]) as srv:
            main(["task", "-w", str(tmp_path), "--server", srv.url, "--memory", str(tmp_path / "M.md"),
                  "--session", str(tmp_path / f"{policy}.jsonl"), "--approval", policy])
        bodies.append(srv.received[0])
    assert bodies[0] == bodies[1] == bodies[2]


def test_paging_returns_a_page_and_where_the_rest_is(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    code, _, sent = run(tmp_path, [call("read_file", path="big.txt"), DONE], "--paging")
    page, = tool_results(sent[-1])
    assert code == 0 and page.startswith("line 1\n") and "line 41" not in page
    assert "[lines 1-40 of 100; read_file with path 'big.txt' and start=41 for more]" in page
    read_file, = [t for t in sent[0]["tools"] if t["function"]["name"] == "read_file"]
    assert "start" in read_file["function"]["parameters"]["properties"]


def test_the_edit_guard_refuses_an_edit_of_a_file_not_read(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.txt").write_text("old\n")
    replies = [call("edit_file", path="a.txt", old="old", new="new"), DONE]
    code, repo, sent = run(tmp_path, replies, "--edit-guard", "--approval", "auto")
    assert code == 0 and (repo / "a.txt").read_text() == "old\n"
    assert "has not been read in this session" in tool_results(sent[-1])[0]


def test_masking_cuts_older_tool_results_to_their_first_line(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.txt").write_text("first\nsecond\n")
    replies = [call("read_file", 1, path="a.txt"), call("read_file", 2, path="a.txt"),
               call("read_file", 3, path="a.txt"), DONE]
    code, _, sent = run(tmp_path, replies, "--mask", "1")
    assert code == 0
    assert tool_results(sent[-1]) == ["first", "first", "first\nsecond\n"]


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_mask_rounds_that_make_no_sense_are_refused(tmp_path, capsys, value):
    with pytest.raises(SystemExit) as caught:
        parse_args(["task", "--mask", value])
    assert caught.value.code == 2 and "argument --mask: " in capsys.readouterr().err


def test_paging_keeps_the_sandbox_of_the_workspace(tmp_path):
    seen = []

    def wrapper(root, command, run_id):
        seen.append(command)
        return ["sh", "-c", command]
    Pager(ConfinedWorkspace(tmp_path, command_timeout=5, command_wrapper=wrapper)).run_command("echo hi")
    assert seen == ["echo hi"]  # a paged command runs wrapped too, never outside the sandbox
