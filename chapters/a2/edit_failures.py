"""A2·3: how an edit fails, and what the model is told, with miniagent's tools and with the edit guard.

Each case runs for real on a fresh copy of the toy repository (``data/toy-repo``): the call goes through
``Toolbox.call`` exactly as the loop sends it, and the text it returns is what the model reads next.
``cases()`` is what the lesson's table shows and what chapters/a2/tests check.
"""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from miniagent.edit_guard import with_edit_guard
from miniagent.tools import Toolbox, Workspace

from prefixlab.paths import TOY_REPO

PATH = "units/convert.py"
OLD, NEW = r"^\s*(\d+", r"^\s*(-?\d+"


@dataclass(frozen=True)
class Case:
    name: str          # the failure, in the lesson's words
    default: str       # what miniagent's edit_file returns
    guarded: str       # what it returns with the edit guard
    file_changed: bool  # whether the file on disk changed (default, guarded)
    guarded_changed: bool


def _box(root: Path, guarded: bool) -> Toolbox:
    box = Toolbox(Workspace(root), memory=None)
    return with_edit_guard(box) if guarded else box


def _run(setup, call: dict, guarded: bool) -> tuple[str, bool]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(TOY_REPO, root)
        box = _box(root, guarded)
        setup(box, root)
        before = (root / PATH).read_text()
        result = box.call("edit_file", call)
        return result, (root / PATH).read_text() != before


def _read(box, root):
    box.call("read_file", {"path": PATH})


def _read_then_someone_edits(box, root):
    box.call("read_file", {"path": PATH})
    file = root / PATH  # the user saves the file meanwhile: a new first line, the pattern untouched
    file.write_text("# edited by the user\n" + file.read_text())


CASES = [
    ("旧文本找不到(多了一个空格)", _read, {"path": PATH, "old": OLD.replace("(", " ("), "new": NEW}),
    ("旧文本不止一处", _read, {"path": PATH, "old": "value", "new": "amount"}),
    ("读过之后文件被别人改了", _read_then_someone_edits, {"path": PATH, "old": OLD, "new": NEW}),
    ("从没读过就改", lambda box, root: None, {"path": PATH, "old": OLD, "new": NEW}),
]


def cases() -> list[Case]:
    out = []
    for name, setup, call in CASES:
        default, changed = _run(setup, call, guarded=False)
        guarded, guarded_changed = _run(setup, call, guarded=True)
        out.append(Case(name, default, guarded, changed, guarded_changed))
    return out
