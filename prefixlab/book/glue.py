"""Glue computed values into a chapter's prose, formatted the way the text shows them.

MyST-NB's ``glue`` stores an object's ``text/plain`` form; a plain ``str`` would show its quotes.
``glue_text("refresh_cached", 168)`` stores ``168`` (thousands separated: ``1,658``), and the
markdown writes ``{glue:text}`refresh_cached```. nbval compares the stored text like any output.
"""
from __future__ import annotations

from myst_nb import glue


class Shown:
    """An object whose text form is exactly ``text``."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def shown(value) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)


def glue_text(name: str, value) -> None:
    glue(name, Shown(shown(value)), display=False)


def glue_all(**values) -> None:
    for name, value in values.items():
        glue_text(name, value)
