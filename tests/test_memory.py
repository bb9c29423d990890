import multiprocessing

import pytest

from miniagent.modes import for_mode
from miniagent.tools import Toolbox, Workspace
from miniagent.memory import ENTRY_DELIMITER, MemoryFileError, MemoryStore, NoteRefused


def test_add_writes_to_disk_at_once(tmp_path):
    store = MemoryStore(tmp_path / "mem" / "MEMORY.md")
    message = store.add("Run tests with `python -m pytest -q tests`.")
    assert "Saved" in message and "/2200 chars" in message
    assert MemoryStore(store.path).entries() == ["Run tests with `python -m pytest -q tests`."]


def test_entries_are_split_on_the_delimiter_and_may_span_lines(tmp_path):
    store = MemoryStore(tmp_path / "MEMORY.md")
    store.add("first\nsecond line of the first note")
    store.add("another")
    assert store.entries() == ["first\nsecond line of the first note", "another"]
    assert store.text() == "first\nsecond line of the first note" + ENTRY_DELIMITER + "another"


def test_note_over_the_limit_is_refused_and_memory_is_left_intact(tmp_path):
    store = MemoryStore(tmp_path / "MEMORY.md", char_limit=50)
    store.add("x" * 40)
    before = store.path.read_bytes()
    with pytest.raises(NoteRefused, match="Memory is full.*Nothing was saved"):
        store.add("y" * 20)
    assert store.path.read_bytes() == before
    assert not list(tmp_path.glob(".MEMORY.*.tmp"))  # no temp file left behind


@pytest.mark.parametrize("note", ["", "   \n", "a\n§\nb", "§"])
def test_empty_notes_and_notes_holding_the_delimiter_are_refused(tmp_path, note):
    store = MemoryStore(tmp_path / "MEMORY.md")
    with pytest.raises(NoteRefused):
        store.add(note)
    assert not store.path.exists()


def test_a_duplicate_note_changes_nothing(tmp_path):
    store = MemoryStore(tmp_path / "MEMORY.md")
    store.add("same")
    assert "nothing changed" in store.add("same")
    assert store.entries() == ["same"]


def _writer(path, worker, count):
    store = MemoryStore(path, char_limit=10**6)
    for i in range(count):
        store.add(f"worker {worker} note {i}")


def test_eight_processes_writing_fifty_notes_each_lose_none(tmp_path):
    path = tmp_path / "MEMORY.md"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(path, w, 50)) for w in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    entries = MemoryStore(path).entries()
    assert sorted(entries) == sorted(f"worker {w} note {i}" for w in range(8) for i in range(50))


def test_frozen_keeps_the_session_start_snapshot_refresh_reads_disk(tmp_path):
    store = MemoryStore(tmp_path / "MEMORY.md")
    store.add("old fact")
    frozen = for_mode("frozen", "base", "rules", store)
    refresh = for_mode("refresh", "base", "rules", store)
    store.add("new fact")
    assert "new fact" not in frozen() and "old fact" in frozen()
    assert "new fact" in refresh()
    # The next session (a new provider) sees the write in frozen mode too.
    assert "new fact" in for_mode("frozen", "base", "rules", store)()


def test_unknown_mode_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="unknown memory mode 'sometimes'"):
        for_mode("sometimes", "b", "", MemoryStore(tmp_path / "M.md"))


def test_a_note_that_cannot_be_encoded_is_refused_and_memory_is_left_intact(tmp_path):
    store = MemoryStore(tmp_path / "MEMORY.md")
    store.add("first note")
    with pytest.raises(NoteRefused, match=r"cannot be saved as UTF-8 \(character 4: '\\ud800'"):
        store.add("bad \ud800 note")
    assert store.entries() == ["first note"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MEMORY.md", "MEMORY.md.lock"]  # no temp file left


def test_a_memory_file_that_is_not_utf8_is_a_clear_error_and_is_never_overwritten(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"caf\xe9 note\n")
    store = MemoryStore(path)
    with pytest.raises(MemoryFileError, match=rf"{path}: not UTF-8 text \(byte 3"):
        store.text()
    with pytest.raises(MemoryFileError):
        store.add("another note")
    # The remember tool turns it into a message for the model.
    box = Toolbox(Workspace(tmp_path), store)
    assert box.call("remember", {"note": "x"}).startswith(f"error: {path}: not UTF-8 text (byte 3")
    assert path.read_bytes() == b"caf\xe9 note\n"
