"""Glue computed values into a chapter's prose, formatted the way the text shows them.

``glue_text("refresh_cached", 1658)`` stores the string ``"1,658"`` with MyST-NB's ``glue``; the
markdown writes ``{glue:text}`refresh_cached```. MyST-NB reads a glued ``str`` back through
``ast.literal_eval`` (which strips the quotes of its text form), so strings are the safe carrier:
a bare ``1,658`` would be read back as the tuple ``(1, 658)``. nbval compares the stored text.
"""
from __future__ import annotations

from myst_nb import glue


def shown(value) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)


def glue_text(name: str, value) -> None:
    glue(name, shown(value), display=False)


def glue_all(**values) -> None:
    for name, value in values.items():
        glue_text(name, value)
