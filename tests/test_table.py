"""prefixlab.presenting.book.table: an HTML table for the page, the same cells as text for nbval."""
import pytest

from prefixlab.presenting.book.table import Table


def test_html_and_text_hold_the_same_cells():
    t = Table(["轮", "prompt", "命中"], [[1, 862, 0], [6, 1796, None]], numeric=[1, 2], highlight=[1], caption="表")
    html = t._repr_html_()
    assert html.startswith('<table class="table prefixlab-table"><caption>表</caption>')
    assert '<th style="text-align: right">prompt</th>' in html and "<strong>1,796</strong>" in html
    assert repr(t).splitlines() == ["表", "轮 | prompt | 命中", "1 | 862 | 0", "6 | 1,796 | — ◀"]


def test_cells_are_escaped_and_rows_checked():
    assert "&lt;b&gt;" in Table(["x"], [["<b>"]])._repr_html_()
    with pytest.raises(ValueError, match="row 0 has 2 cells"):
        Table(["x"], [[1, 2]])
