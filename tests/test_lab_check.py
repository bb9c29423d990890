"""The lab check (scripts/lab_check.py) finds every lab and runs in CI after the book check."""
from __future__ import annotations

import importlib.util

from prefixlab.paths import REPO_ROOT


def load_script():
    spec = importlib.util.spec_from_file_location("lab_check", REPO_ROOT / "scripts" / "lab_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_lab_notebook_is_checked_and_a_new_chapter_joins(tmp_path):
    lab_check = load_script()
    found = [p.relative_to(REPO_ROOT).as_posix() for p in lab_check.discover()]
    assert "labs/calculator.ipynb" in found and "labs/record-your-own.ipynb" in found
    assert {"labs/a6/skills.ipynb", "labs/a6/session-tree.ipynb"} <= set(found)
    (tmp_path / "labs" / "a7" / ".ipynb_checkpoints").mkdir(parents=True)
    (tmp_path / "labs" / "a7" / "new.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "labs" / "a7" / ".ipynb_checkpoints" / "new-checkpoint.ipynb").write_text("{}", encoding="utf-8")
    assert lab_check.discover(tmp_path) == [tmp_path / "labs" / "a7" / "new.ipynb"]


def test_ci_runs_the_lab_check_after_the_book_check():
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.index("make check-book") < ci.index("make check-labs")
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert "check-labs: install\n\tPYTHONHASHSEED=0 $(BIN)/python scripts/lab_check.py" in makefile
