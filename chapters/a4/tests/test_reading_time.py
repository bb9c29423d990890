"""Each A4 lesson reads in at most 40 minutes, counted as for A6 (chapters/a6/tests/test_reading_time.py
explains the count; a chapter does not import another, so the few lines are repeated here): the 汉字 of
the markdown a reader sees on opening, folds (``{dropdown}``) and code blocks left out, at 300 a minute;
and again with every fold opened."""
import json
import re

import pytest

from prefixlab.paths import REPO_ROOT

LESSONS = sorted((REPO_ROOT / "book" / "a4").glob("a4-*.ipynb"))
HANZI_PER_MINUTE, MINUTES = 300, 40
HANZI = re.compile(r"[\u4e00-\u9fff]")
FENCE = re.compile(r"^(:{3,}|`{3,})\{?([\w-]+)?")


def shown(markdown: str) -> str:
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


def minutes(texts: list[str]) -> float:
    return sum(len(HANZI.findall(t)) for t in texts) / HANZI_PER_MINUTE


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_reads_in_forty_minutes(lesson):
    texts = ["".join(c["source"]) for c in json.loads(lesson.read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "markdown"]
    assert minutes([shown(t) for t in texts]) <= MINUTES
    assert minutes(texts) <= MINUTES


def test_every_lesson_is_counted():
    assert [p.stem.split("-", 2)[1] for p in LESSONS] == ["1", "2", "3"]
    assert shown("正文\n:::{dropdown} 折\n折起来\n:::\n```python\n# 注释\n```\n后面") == "正文\n后面"
