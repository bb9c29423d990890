"""miniagent/edit_guard.py (A2·3, opt-in): an edit applies only to the file the model has seen."""
import pytest

from miniagent.edit_guard import with_edit_guard
from miniagent.memory import MemoryStore
from miniagent.paging import with_paging
from miniagent.tools import Toolbox, Workspace


@pytest.fixture
def box(tmp_path):
    (tmp_path / "app.py").write_text("x = 1\ny = 1\n")
    return with_edit_guard(Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "home" / "MEMORY.md")))


def test_definitions_do_not_change(tmp_path, box):
    plain = Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "home" / "MEMORY.md"))
    assert box.definitions == plain.definitions


def test_an_edit_after_a_read_applies(tmp_path, box):
    box.call("read_file", {"path": "app.py"})
    assert box.call("edit_file", {"path": "app.py", "old": "x = 1", "new": "x = 2"}) == "Edited app.py."
    assert (tmp_path / "app.py").read_text() == "x = 2\ny = 1\n"
    # its own edit does not count as a change behind its back
    assert box.call("edit_file", {"path": "app.py", "old": "y = 1", "new": "y = 3"}) == "Edited app.py."


def test_an_edit_without_a_read_is_refused(tmp_path, box):
    out = box.call("edit_file", {"path": "app.py", "old": "x = 1", "new": "x = 2"})
    assert out == "error: app.py has not been read in this session; read it first, then change it"
    assert (tmp_path / "app.py").read_text() == "x = 1\ny = 1\n"


def test_a_file_changed_meanwhile_is_refused(tmp_path, box):
    box.call("read_file", {"path": "app.py"})
    (tmp_path / "app.py").write_text("x = 1\ny = 1\nz = 1\n")  # someone else saved it
    out = box.call("edit_file", {"path": "app.py", "old": "x = 1", "new": "x = 2"})
    assert out == "error: app.py changed since you last read it; read it again before changing it"
    assert (tmp_path / "app.py").read_text() == "x = 1\ny = 1\nz = 1\n"
    box.call("read_file", {"path": "app.py"})
    assert box.call("edit_file", {"path": "app.py", "old": "x = 1", "new": "x = 2"}) == "Edited app.py."


def test_not_found_and_not_unique_say_how_to_fix_the_call(tmp_path, box):
    box.call("read_file", {"path": "app.py"})
    out = box.call("edit_file", {"path": "app.py", "old": "x  = 1", "new": "x = 2"})
    assert out.startswith("error: the old text was not found in app.py; it must match the file exactly")
    out = box.call("edit_file", {"path": "app.py", "old": " = 1", "new": " = 2"})
    assert out == "error: the old text occurs 2 times in app.py; add the lines around it so that it occurs exactly once"
    assert (tmp_path / "app.py").read_text() == "x = 1\ny = 1\n"


def test_write_file_is_guarded_but_a_new_file_is_not(tmp_path, box):
    assert box.call("write_file", {"path": "app.py", "content": "gone"}).startswith("error: app.py has not been read")
    assert box.call("write_file", {"path": "new.py", "content": "n = 1\n"}) == "Wrote 6 characters to new.py."
    assert box.call("write_file", {"path": "new.py", "content": "n = 2\n"}) == "Wrote 6 characters to new.py."


def test_with_paging_the_guard_wraps_the_paged_read(tmp_path):
    (tmp_path / "app.py").write_text("".join(f"v{i} = {i}\n" for i in range(100)))
    box = with_edit_guard(with_paging(Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "h" / "M.md"))))
    assert "start=41" in box.call("read_file", {"path": "app.py"})
    assert box.call("edit_file", {"path": "app.py", "old": "v99 = 99", "new": "v99 = 0"}) == "Edited app.py."


@pytest.mark.parametrize("paged", [False, True])
def test_an_extra_argument_is_a_tool_error_not_a_crash(tmp_path, paged):
    """The argument check sees through the guard's wrapper to what takes the arguments in the end."""
    (tmp_path / "app.py").write_text("x = 1\n")
    box = Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "h" / "M.md"))
    box = with_edit_guard(with_paging(box) if paged else box)
    assert "unexpected keyword argument 'bogus'" in box.call("read_file", {"path": "app.py", "bogus": 1})
    assert "unexpected keyword argument 'z'" in box.call("edit_file", {"path": "app.py", "old": "x", "new": "y",
                                                                       "z": 2})
    assert (tmp_path / "app.py").read_text() == "x = 1\n"
