"""miniagent/paging.py (A2·3, opt-in): a big result one page at a time, with a pointer to the rest."""
from miniagent.memory import MemoryStore
from miniagent.paging import OUTPUT_DIR, PAGE_LINES, READ_DEFINITION, page, paged, with_paging
from miniagent.confined import ConfinedWorkspace
from miniagent.tools import Toolbox, Workspace


def big(tmp_path, lines=100):
    (tmp_path / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, lines + 1)))
    return Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "home" / "MEMORY.md"))


def test_without_paging_nothing_changes(tmp_path):
    box = big(tmp_path)
    assert box.definitions[1]["function"]["parameters"]["required"] == ["path"]
    assert "start" not in box.definitions[1]["function"]["parameters"]["properties"]
    assert box.call("read_file", {"path": "big.txt"}).endswith("line 100\n")


def test_a_small_file_comes_back_whole(tmp_path):
    box = with_paging(big(tmp_path, lines=3))
    assert box.call("read_file", {"path": "big.txt"}) == "line 1\nline 2\nline 3\n"


def test_a_big_file_comes_back_a_page_at_a_time(tmp_path):
    box = with_paging(big(tmp_path))
    first = box.call("read_file", {"path": "big.txt"})
    assert first.splitlines()[0] == "line 1" and first.splitlines()[PAGE_LINES - 1] == f"line {PAGE_LINES}"
    assert first.endswith(f"[lines 1-{PAGE_LINES} of 100; read_file with path 'big.txt' and start={PAGE_LINES + 1} for more]")
    last = box.call("read_file", {"path": "big.txt", "start": 81})
    assert last == "".join(f"line {i}\n" for i in range(81, 101))  # the end: no pointer


def test_the_definition_offers_start(tmp_path):
    box = with_paging(big(tmp_path))
    assert box.definitions[1] == READ_DEFINITION
    assert [d["function"]["name"] for d in box.definitions] == \
        ["list_files", "read_file", "write_file", "edit_file", "run_command", "remember"]


def test_bad_start_is_an_error_the_model_reads(tmp_path):
    box = with_paging(big(tmp_path))
    assert box.call("read_file", {"path": "big.txt", "start": 0}).startswith("error: start must be between 1 and 100")
    assert box.call("read_file", {"path": "big.txt", "start": "2"}) == "error: bad arguments for read_file: 'start' must be an integer, not string"
    assert box.call("read_file", {"path": "nope.txt"}) == "error: no such file: 'nope.txt'"


def test_a_long_line_is_cut_to_a_page():
    body, following = page("x" * 5000 + "\nend\n", chars=100)
    assert body == "x" * 100 and following == 2


def test_an_empty_file_is_one_empty_page():
    assert paged("", "empty.txt") == ""


def test_long_command_output_is_saved_whole_and_paged(tmp_path):
    box = with_paging(big(tmp_path, lines=1))
    out = box.call("run_command", {"command": "seq 1 3000"})
    assert out.splitlines()[0] == "1" and f"the whole output is saved in {OUTPUT_DIR}/command-1.txt" in out
    saved = (tmp_path / OUTPUT_DIR / "command-1.txt").read_text()
    assert saved.splitlines()[:3000] == [str(i) for i in range(1, 3001)]  # nothing cut from the middle
    nxt = box.call("read_file", {"path": f"{OUTPUT_DIR}/command-1.txt", "start": PAGE_LINES + 1})
    assert nxt.splitlines()[0] == str(PAGE_LINES + 1)


def test_short_command_output_is_unchanged(tmp_path):
    box = with_paging(big(tmp_path, lines=1))
    assert box.call("run_command", {"command": "echo hi"}) == "hi\n\n[exit code 0]"
    assert not (tmp_path / OUTPUT_DIR).exists()


def test_a_later_session_never_overwrites_a_saved_output(tmp_path):
    """Issue 48: each session's pager counted from 1, so the second session's output replaced the first's."""
    first = with_paging(big(tmp_path)).call("run_command", {"command": "seq 1 100"})
    second = with_paging(big(tmp_path)).call("run_command", {"command": "seq 500 600"})  # a new session
    assert f"{OUTPUT_DIR}/command-1.txt" in first and f"{OUTPUT_DIR}/command-2.txt" in second
    assert (tmp_path / OUTPUT_DIR / "command-1.txt").read_text().startswith("1\n")  # still the first's
    assert (tmp_path / OUTPUT_DIR / "command-2.txt").read_text().startswith("500\n")


def test_an_outputs_file_says_the_command_ran_and_why_the_rest_is_not_kept(tmp_path):
    (tmp_path / OUTPUT_DIR).write_text("mine")
    out = with_paging(big(tmp_path)).call("run_command", {"command": "seq 1 100 && touch ran.txt"})
    assert out.startswith("1\n2\n") and (tmp_path / "ran.txt").exists()
    assert "the command ran, but the rest of its output could not be saved" in out
    assert f"{OUTPUT_DIR} is a file, not a folder" in out
    assert (tmp_path / OUTPUT_DIR).read_text() == "mine"  # the user's file is untouched


def test_an_outputs_link_out_of_the_workspace_is_not_written_through(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / OUTPUT_DIR).symlink_to(outside)
    out = with_paging(big(repo)).call("run_command", {"command": "seq 1 100"})
    assert "leads outside the workspace" in out and list(outside.iterdir()) == []


def test_a_paged_read_of_a_file_that_is_not_utf8_says_so(tmp_path):
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff")
    out = with_paging(big(tmp_path)).call("read_file", {"path": "logo.png"})
    assert out.startswith("error: logo.png is not UTF-8 text (byte 0:") and "\ufffd" not in out


def test_paged_commands_keep_the_sandbox(tmp_path):
    """The pager runs a command on a copy of the workspace: it must carry the same command wrapper."""
    seen = []

    def wrapper(root, command, run_id):
        seen.append(command)
        return ["sh", "-c", command]
    box = Toolbox(ConfinedWorkspace(tmp_path, command_wrapper=wrapper), MemoryStore(tmp_path / "h" / "M.md"))
    with_paging(box).call("run_command", {"command": "echo hi"})
    assert seen == ["echo hi"]
