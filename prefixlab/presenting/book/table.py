"""A table for a notebook cell: a real HTML table on the page, the same rows as text for nbval.

    from prefixlab.presenting.book.table import Table
    Table(["轮", "prompt"], [[1, 862], [2, 951]], numeric=[1])

The book shows ``text/html`` (the theme styles it like the Markdown tables of the prose);
nbval compares ``text/plain``, which holds every cell, so a number that moves still fails CI.
Integers are printed with thousands separators, like the glued numbers in the prose.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Sequence


def cell_text(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "是" if value else "否"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


@dataclass(frozen=True)
class Table:
    columns: Sequence[str]
    rows: Sequence[Sequence]
    numeric: Sequence[int] = field(default_factory=tuple)  # column indices aligned right
    caption: str | None = None
    highlight: Sequence[int] = field(default_factory=tuple)  # row indices shown in bold

    def __post_init__(self):
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"row {i} has {len(row)} cells, the table has {len(self.columns)} columns")

    def _repr_html_(self) -> str:
        e = html.escape

        def cells(tag, values, bold=False):
            out = []
            for i, v in enumerate(values):
                align = ' style="text-align: right"' if i in self.numeric else ""
                text = e(cell_text(v))
                out.append(f"<{tag}{align}>{f'<strong>{text}</strong>' if bold else text}</{tag}>")
            return "".join(out)

        caption = f"<caption>{e(self.caption)}</caption>" if self.caption else ""
        body = "".join(f"<tr>{cells('td', row, i in self.highlight)}</tr>" for i, row in enumerate(self.rows))
        return (f'<table class="table prefixlab-table">{caption}<thead><tr>{cells("th", self.columns)}</tr></thead>'
                f"<tbody>{body}</tbody></table>")

    def __repr__(self) -> str:
        lines = [self.caption] if self.caption else []
        lines.append(" | ".join(self.columns))
        lines += [" | ".join(cell_text(v) for v in row) + (" ◀" if i in self.highlight else "")
                  for i, row in enumerate(self.rows)]
        return "\n".join(lines)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))
