"""Masking old tool results (miniagent/masking.py): cut to their first line, once, the file keeps them."""
import pytest

from miniagent.loop import run_task
from miniagent.masking import ToolResultMasking, first_line
from miniagent.memory import MemoryStore
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox, Workspace

from helpers import ScriptedModel, answer, tool_call


def _run(tmp_path, steps, n=5):
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    for i in range(1, n + 1):
        (repo / f"f{i}.txt").write_text(f"file {i}\n" + f"line of f{i}\n" * 3)
    (repo / "one.txt").write_text("a single line")
    turns = [tool_call(f"c{i}", "read_file", path=f"f{i}.txt") for i in range(1, n + 1)]
    turns += [tool_call("c_one", "read_file", path="one.txt"), answer("done")]
    model, lines = ScriptedModel(turns), []
    session = Session.open(tmp_path / "s.jsonl")
    run_task("read them", model=model, toolbox=Toolbox(Workspace(repo), MemoryStore(tmp_path / "M.md")),
             session=session, steps=[FixedPrompt("base"), *steps], log=lines.append)
    return model.requests, session, lines


def tool_contents(request):
    return [m["content"] for m in request if m["role"] == "tool"]


def test_results_older_than_the_last_rounds_are_cut_to_their_first_line(tmp_path):
    requests, session, lines = _run(tmp_path, [ToolResultMasking(keep_rounds=2)])
    whole = [f"file {i}\n" + f"line of f{i}\n" * 3 for i in range(1, 6)]
    assert tool_contents(requests[2]) == whole[:2]                  # round 3: two rounds done, both kept
    assert tool_contents(requests[3]) == ["file 1", *whole[1:3]]    # round 4: round 1's result is cut
    assert tool_contents(requests[5]) == ["file 1", "file 2", "file 3", *whole[3:5]]
    # the one-line result of round 6 is never changed; only the requests change, the file keeps every result
    assert tool_contents(requests[6])[-1] == "a single line"
    assert [e["message"]["content"] for e in session.entries if e["type"] == "message_refresh"] == \
        ["file 1", "file 2", "file 3", "file 4"]  # each result is cut once
    assert sum(e["type"] == "message" and e["message"]["role"] == "tool" for e in session.entries) == 6
    assert "round 4: 1 older tool result(s) cut to their first line" in lines


def test_without_masking_the_requests_are_unchanged(tmp_path):
    masked, _, _ = _run(tmp_path / "a", [ToolResultMasking(keep_rounds=10)])
    plain, _, _ = _run(tmp_path / "b", [])
    assert masked == plain


def test_keep_rounds_zero_cuts_every_finished_round(tmp_path):
    requests, _, _ = _run(tmp_path, [ToolResultMasking(keep_rounds=0)], n=2)
    assert tool_contents(requests[2]) == ["file 1", "file 2"]


def test_the_cut_result_is_a_prefix_of_the_whole_one():
    text = "header\nrow 1\nrow 2\n"
    assert text.startswith(first_line(text)) and first_line("one") == "one"


@pytest.mark.parametrize("bad", [-1, True, 1.5, "2"])
def test_a_bad_keep_rounds_is_refused(bad):
    with pytest.raises(ValueError, match="keep_rounds"):
        ToolResultMasking(keep_rounds=bad)


def test_a_placeholder_replaces_the_whole_result_once(tmp_path):
    requests, session, lines = _run(tmp_path, [ToolResultMasking(keep_rounds=2, placeholder="[output removed]")])
    assert tool_contents(requests[3])[0] == "[output removed]"
    assert tool_contents(requests[5])[:3] == ["[output removed]"] * 3
    assert sum(e["type"] == "message_refresh" for e in session.entries) == 4  # each older result once
    assert "round 4: 1 older tool result(s) cut to '[output removed]'" in lines


@pytest.mark.parametrize("bad", [7, "two\nlines"])
def test_a_bad_placeholder_is_refused(bad):
    with pytest.raises(ValueError, match="placeholder"):
        ToolResultMasking(placeholder=bad)
