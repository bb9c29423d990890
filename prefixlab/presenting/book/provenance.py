"""The 口径 note under every figure or table: which recording, model, server, tokenizer.

A reader must be able to tell where a number came from without reading the code::

    display(provenance_note(recording=path, model=meta["model"], server=meta["server"]))

where ``meta`` comes from the recording itself, never typed by hand.

The note has a ``text/plain`` form too, so nbval compares it like any other output.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

# Known fields in display order, with their Chinese labels; other fields follow as given.
LABELS = {
    "recording": "记录",
    "model": "模型",
    "server": "服务器",
    "tokenizer": "分词器",
    "template": "聊天模板",
    "rule": "缓存规则",
    "prices": "价格表",
    "date": "录制日期",
    "note": "说明",
}


@dataclass(frozen=True)
class ProvenanceNote:
    fields: tuple[tuple[str, str], ...]

    def _labelled(self) -> list[tuple[str, str]]:
        return [(LABELS.get(key, key), value) for key, value in self.fields]

    def __repr__(self) -> str:
        return "口径 · " + "; ".join(f"{label}: {value}" for label, value in self._labelled())

    def _repr_pretty_(self, printer, cycle) -> None:  # IPython's text/plain
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        items = "".join(
            f"<dt>{html.escape(label)}</dt><dd>{html.escape(value)}</dd>"
            for label, value in self._labelled()
        )
        return (
            '<div class="prefixlab-provenance" role="note">'
            '<span class="prefixlab-provenance__title">口径</span>'
            f"<dl>{items}</dl></div>"
        )


def provenance_note(**fields: object) -> ProvenanceNote:
    """Build a 口径 note; known keys (``LABELS``) come first, in a fixed order."""
    if not fields:
        raise ValueError("provenance_note() needs at least one field, e.g. recording=...")
    empty = [key for key, value in fields.items() if value is None or str(value).strip() == ""]
    if empty:
        raise ValueError(f"provenance_note(): empty value for {', '.join(empty)}")
    known = [(key, str(fields[key])) for key in LABELS if key in fields]
    other = [(key, str(value)) for key, value in fields.items() if key not in LABELS]
    return ProvenanceNote(tuple(known + other))
