"""A task set in SWE-bench's shape, on the course's toy repository.

Each task is a folder ``<root>/<id>/``:

- ``task.md``: the task as the agent reads it (the user message), nothing more;
- ``task.yml``: ``base`` (a repository under ``data/``, here ``toy-repo``), the hidden tests that must
  turn from failing to passing (``fail_to_pass``) and those that must keep passing (``pass_to_pass``),
  the files the agent must not delete or change (``protected``), and the oracle's tool calls (``oracle``);
- ``workspace/`` (optional): the files that differ from the base: the bug;
- ``check.py``: the hidden check, ``test_<name>`` functions. It is never copied into the workspace:
  the agent cannot read it, run it or edit it.

``load_tasks`` reads every task and says exactly what is wrong with a bad one (``TaskSetError``).
"""
from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

from prefixlab.paths import DATA

TASKS = DATA / "a9" / "tasks"
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class TaskSetError(ValueError):
    """A task folder that cannot be used; the message names the folder and what is wrong."""


@dataclass(frozen=True)
class Task:
    id: str
    folder: Path
    text: str                       # task.md: what the agent reads
    base: Path                      # the repository the workspace starts from
    fail_to_pass: tuple[str, ...]   # hidden tests that fail before and must pass after
    pass_to_pass: tuple[str, ...]   # hidden tests that pass before and must still pass after
    protected: tuple[str, ...]      # files the agent must leave as they were
    oracle: tuple[dict, ...]        # the oracle's tool calls: {"tool": NAME, "arguments": {...}}

    @property
    def check(self) -> Path:
        return self.folder / "check.py"

    @property
    def overlay(self) -> Path:
        return self.folder / "workspace"

    @property
    def tests(self) -> tuple[str, ...]:
        return self.fail_to_pass + self.pass_to_pass

    def make_workspace(self, target: Path) -> Path:
        """A fresh copy of the starting workspace at ``target`` (which must not exist)."""
        shutil.copytree(self.base, target)
        if self.overlay.is_dir():
            shutil.copytree(self.overlay, target, dirs_exist_ok=True)
        return target


def _names(value, field: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.isidentifier() for v in value):
        raise TaskSetError(f"{where}: {field} must be a list of test names (check.py's test_<name>)")
    return tuple(value)


def load_task(folder: Path, data: Path = DATA) -> Task:
    folder = Path(folder)
    where = str(folder)
    if not NAME.match(folder.name):
        raise TaskSetError(f"{where}: a task id is lower-case letters, digits and '-'")
    for name in ("task.md", "task.yml", "check.py"):
        if not (folder / name).is_file():
            raise TaskSetError(f"{where}: {name} is missing")
    text = (folder / "task.md").read_text(encoding="utf-8").strip()
    if not text:
        raise TaskSetError(f"{where}: task.md is empty")
    try:
        spec = yaml.safe_load((folder / "task.yml").read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise TaskSetError(f"{where}/task.yml is not YAML: {err}") from None
    if not isinstance(spec, dict):
        raise TaskSetError(f"{where}/task.yml must be a mapping")
    base = data / str(spec.get("base", ""))
    if not spec.get("base") or not base.is_dir():
        raise TaskSetError(f"{where}/task.yml: base {spec.get('base')!r} is not a folder under {data}")
    f2p = _names(spec.get("fail_to_pass"), "fail_to_pass", where)
    p2p = _names(spec.get("pass_to_pass", []), "pass_to_pass", where)
    if not f2p:
        raise TaskSetError(f"{where}/task.yml: fail_to_pass is empty: nothing would show the task was done")
    if set(f2p) & set(p2p):
        raise TaskSetError(f"{where}/task.yml: a test is both fail_to_pass and pass_to_pass")
    check_text = (folder / "check.py").read_text(encoding="utf-8")
    missing = [n for n in f2p + p2p if not re.search(rf"^def test_{n}\(", check_text, re.M)]
    if missing:
        raise TaskSetError(f"{where}/check.py has no test_{missing[0]}")
    protected = tuple(spec.get("protected") or ())
    oracle = spec.get("oracle") or []
    if not isinstance(oracle, list) or not all(isinstance(c, dict) and isinstance(c.get("tool"), str)
                                               and isinstance(c.get("arguments"), dict) for c in oracle):
        raise TaskSetError(f"{where}/task.yml: oracle must be a list of {{tool, arguments}}")
    return Task(folder.name, folder, text, base, f2p, p2p, protected, tuple(oracle))


def load_tasks(root: Path = TASKS, only: list[str] | None = None) -> list[Task]:
    """Every task under ``root`` in name order (or the ones named in ``only``, in that order)."""
    root = Path(root)
    if not root.is_dir():
        raise TaskSetError(f"{root}: no such task set folder")
    found = {d.name: d for d in sorted(root.iterdir()) if d.is_dir()}
    if only:
        unknown = [name for name in only if name not in found]
        if unknown:
            raise TaskSetError(f"no task {unknown[0]!r} in {root}; known: {', '.join(found)}")
        found = {name: found[name] for name in only}
    if not found:
        raise TaskSetError(f"{root}: the task set is empty")
    return [load_task(d) for d in found.values()]
