"""Each A6 lesson reads in at most 40 minutes.

What is counted: the 汉字 of the lesson's markdown as the page shows it on opening — prose, tables, box
texts — with folded sections (``{dropdown}`` blocks) and code blocks left out; the reader opens a fold
only when they want the method. Numbers, English terms and code are not counted (they slow reading but
are few in a paragraph). Speed: 300 汉字 a minute. Plain Chinese prose is read at roughly 400–500 字 a
minute; a technical page, where the reader stops at every number and term, is taken at the slower 300.
A second bound keeps the folds honest: with every fold opened a lesson still reads in 40 minutes.
"""
from __future__ import annotations

import json
import re

import pytest

from prefixlab.paths import REPO_ROOT

LESSONS = sorted((REPO_ROOT / "book" / "a6").glob("a6-*.ipynb"))
HANZI_PER_MINUTE = 300
MINUTES = 40
HANZI = re.compile(r"[\u4e00-\u9fff]")
FENCE = re.compile(r"^(:{3,}|`{3,})\{?([\w-]+)?")


def shown(markdown: str) -> str:
    """The markdown minus folded sections and code blocks."""
    kept, open_blocks = [], []
    for line in markdown.splitlines():
        m = FENCE.match(line)
        if m and m.group(2):
            open_blocks.append((m.group(1), m.group(2)))
            continue
        if open_blocks and line.strip() == open_blocks[-1][0]:
            open_blocks.pop()
            continue
        if any(kind == "dropdown" or fence.startswith("`") for fence, kind in open_blocks):
            continue
        kept.append(line)
    return "\n".join(kept)


def _markdown(path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"]


def minutes(texts: list[str]) -> float:
    return sum(len(HANZI.findall(t)) for t in texts) / HANZI_PER_MINUTE


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_reads_in_forty_minutes(lesson):
    texts = _markdown(lesson)
    assert minutes([shown(t) for t in texts]) <= MINUTES
    assert minutes(texts) <= MINUTES  # every fold opened


def test_folds_and_code_are_not_counted():
    page = "正文四个字\n\n::::{dropdown} 标题\n折起来的\n:::{admonition} 盒\n盒里\n:::\n::::\n```python\n# 注释里的字\n```\n后面"
    assert shown(page).count("折") == 0 and "注释" not in shown(page)
    assert "正文四个字" in shown(page) and "后面" in shown(page)
    assert LESSONS, "no A6 lessons found"
