"""Chapter boundaries in miniagent, from the imports (AST, static): the modules a chapter brings
(miniagent/CHAPTERS) and everything they import, packages included, hold nothing of a later chapter."""
from __future__ import annotations

import pytest
from test_miniagent_structure import GRAPH, MODULES, PACKAGE


def chapter_of() -> dict[str, int]:
    found = {}
    for line in (PACKAGE / "CHAPTERS").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            path, chapter = line.split()[:2]
            name = "miniagent." + path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            found["miniagent" if path == "__init__.py" else name] = int(chapter[1:])
    return found


def closure(roots) -> set[str]:
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            parts = name.split(".")
            todo += list(GRAPH[name]) + [".".join(parts[:i]) for i in range(1, len(parts))]
    return seen


def chapter_closure(n: int) -> set[str]:
    return closure([m for m, c in chapter_of().items() if c <= n])


def lines(modules) -> int:
    return sum(len(MODULES[m].read_text(encoding="utf-8").splitlines()) for m in modules)


@pytest.mark.parametrize("n", range(1, 9))
def test_no_chapter_imports_a_later_one(n):
    chapters = chapter_of()
    assert sorted(m for m in chapter_closure(n) if chapters[m] > n) == []


def test_the_check_finds_a_planted_leak():
    GRAPH["miniagent.loop"].add("miniagent.children")
    try:
        assert "miniagent.children" in chapter_closure(1)
    finally:
        GRAPH["miniagent.loop"].discard("miniagent.children")


def test_a1_closure_does_not_grow():
    # measured 1005 before issue 48; 1215 with its checks of the server's answer where it enters
    # (reply.py), the session written before an error, and the budget over every call; 1044 once
    # A3·1's command hardening (confined.py), the later chapters' entry types (session.KINDS), the
    # torn-line recovery of a continued session (session_cli.py) and cut_off (cli.py) left A1's files
    # (issue 40's target: 600, not reached yet)
    assert lines(chapter_closure(1)) <= 1050


def test_the_readme_table_is_the_chapter_map():
    """The README's "miniagent,逐个文件" table lists CHAPTERS' modules, with their chapters, in its order."""
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## miniagent,逐个文件", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| `")]
    in_readme = [(path.strip().strip("`"), chapter.strip()) for path, chapter in rows]
    in_map = [tuple(line.split()[:2]) for line in (PACKAGE / "CHAPTERS").read_text(encoding="utf-8").splitlines()
              if line.strip() and not line.startswith("#")]
    assert in_readme == in_map
