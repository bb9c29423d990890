"""Each A4 lesson reads in at most 40 minutes, counted as for A6 (chapters/a6/tests/test_reading_time.py):
the 汉字 of the markdown a reader sees on opening, at 300 a minute, and again with every fold opened."""
import pytest

from prefixlab.paths import REPO_ROOT
from chapters.a6.tests.test_reading_time import MINUTES, _markdown, minutes, shown

LESSONS = sorted((REPO_ROOT / "book" / "a4").glob("a4-*.ipynb"))


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_reads_in_forty_minutes(lesson):
    texts = _markdown(lesson)
    assert minutes([shown(t) for t in texts]) <= MINUTES
    assert minutes(texts) <= MINUTES


def test_every_lesson_is_counted():
    assert [p.stem.split("-", 2)[1] for p in LESSONS] == ["1", "2", "3"]
