"""Sphinx extension: straight double quotes in the prose become “ and ”, paired within a paragraph.

docutils' smart quotes tell an opening quote from a closing one by the character before it; after a
Chinese character (no space between) every quote looks like a closing one, so "压缩" came out as
”压缩”. With this extension the book turns smart quotes off (``smartquotes: false`` in _config.yml)
and pairs the quotes itself: in each paragraph, title, caption or table cell, the straight double
quotes outside code alternate opening, closing. A paragraph with an odd number of them is left as
written (an inch mark, a quotation running over two paragraphs). Code, raw HTML, math and notebook
outputs are never touched.
"""
from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

OPEN, CLOSE = "\u201c", "\u201d"
CODE = (nodes.literal, nodes.FixedTextElement, nodes.raw, nodes.math)  # FixedTextElement: literal_block, math_block ...


def prose_texts(element: nodes.Element) -> list[nodes.Text]:
    """The text nodes of ``element`` in reading order, leaving out code and nested blocks."""
    out: list[nodes.Text] = []
    for child in element.children:
        if isinstance(child, nodes.Text):
            out.append(child)
        elif isinstance(child, nodes.Inline) and not isinstance(child, CODE):
            out.extend(prose_texts(child))
    return out


def pair_quotes(texts: list[str]) -> list[str]:
    """``texts`` (the pieces of one paragraph) with their straight double quotes paired; unchanged if odd."""
    if sum(t.count('"') for t in texts) % 2:
        return texts
    out, opening = [], True
    for text in texts:
        pieces = text.split('"')
        joined = pieces[0]
        for piece in pieces[1:]:
            joined += (OPEN if opening else CLOSE) + piece
            opening = not opening
        out.append(joined)
    return out


class PairQuotes(SphinxTransform):
    default_priority = 750  # where docutils' smart quotes would run

    def apply(self, **kwargs: Any) -> None:
        for element in list(self.document.findall(nodes.TextElement)):
            if isinstance(element, (nodes.Inline, *CODE)) or any(isinstance(a, CODE) for a in _ancestors(element)):
                continue
            texts = prose_texts(element)
            if not any('"' in t for t in texts):
                continue
            for old, new in zip(texts, pair_quotes([str(t) for t in texts])):
                if new != str(old):
                    old.parent.replace(old, nodes.Text(new))


def _ancestors(node: nodes.Node):
    while node.parent is not None:
        node = node.parent
        yield node


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(PairQuotes)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
