"""miniagent/paging.py (A2·3, opt-in): a big result one page at a time, with a pointer to the rest."""
from miniagent.memory import MemoryStore
from miniagent.paging import OUTPUT_DIR, PAGE_LINES, READ_DEFINITION, page, paged, with_paging
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
