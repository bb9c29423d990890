"""Print each chapter's miniagent import closure: modules and lines (docstrings included).

The numbers issue 40 tracks (A1's target: 600 lines). It reuses the closure the test computes
(tests/test_chapter_closure.py, from the imports, AST), so the script and the check cannot disagree.
Usage: python scripts/chapter_closure.py
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_chapter_closure import chapter_closure, chapter_of, lines  # noqa: E402


def main() -> None:
    chapters = chapter_of()
    print("| chapter | modules | lines | new modules |")
    print("|---|---:|---:|---|")
    before: set[str] = set()
    for n in range(1, max(chapters.values()) + 1):
        closure = chapter_closure(n)
        new = sorted(m.removeprefix("miniagent.") for m in closure - before)
        print(f"| A{n} | {len(closure)} | {lines(closure):,} | {', '.join(new)} |")
        before = closure


if __name__ == "__main__":
    main()
