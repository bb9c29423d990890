"""Sphinx extension: citation cards in MyST markdown.

Directive (a full card)::

    ```{citation} hermes-memory-frozen
    ```

Role (an inline permalink, e.g. in running text): ``{cite-code}`hermes-memory-frozen```.

A walkthrough of the course's own code (a miniagent function with line notes, see
``prefixlab.presenting.book.walkthrough``), in place of a ``literalinclude``::

    ```{code-walkthrough} session-path-to
    ```

An unknown id is a build warning (an error under ``-W``), with a suggestion.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from prefixlab.paths import CITATIONS
from prefixlab.presenting.book import walkthrough as walkthroughs
from prefixlab.presenting.book.citations import (
    CitationError,
    get_citation,
    render_card_html,
    render_notes_text,
)

logger = logging.getLogger(__name__)


class CitationDirective(SphinxDirective):
    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        cid = self.arguments[0].strip()
        try:
            citation = get_citation(cid)
        except CitationError as error:
            logger.warning(str(error), location=self.get_location(), type="prefixlab", subtype="citation")
            return []
        self.env.note_dependency(str(CITATIONS))  # rebuild when the data changes
        html = nodes.raw("", render_card_html(citation), format="html")
        # Non-HTML builders get the link, the quoted lines, the line notes and our explanation.
        link = nodes.paragraph()
        link += nodes.reference(citation.short_ref, citation.short_ref, refuri=citation.permalink)
        quote = "\n".join(citation.quote_lines())
        explanation = nodes.paragraph(text=citation.explanation)
        only_other = nodes.container(classes=["prefixlab-citation-fallback"])
        only_other += [link, nodes.literal_block(quote, quote)]
        if citation.notes:
            only_other += nodes.paragraph(text=render_notes_text(citation.notes))
        only_other += explanation
        return [html, _only_non_html(only_other)]


class WalkthroughDirective(SphinxDirective):
    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        wid = self.arguments[0].strip()
        try:
            walk = walkthroughs.get_walkthrough(wid)
        except CitationError as error:
            logger.warning(str(error), location=self.get_location(), type="prefixlab", subtype="citation")
            return []
        # Rebuild when the notes or the function's source change.
        self.env.note_dependency(str(walkthroughs.WALKTHROUGHS))
        self.env.note_dependency(str(walk.source_path))
        html = nodes.raw("", walkthroughs.render_walkthrough_html(walk), format="html")
        code = "\n".join(text for _, text in walk.lines)
        only_other = nodes.container(classes=["prefixlab-citation-fallback"])
        only_other += [nodes.paragraph(text=f"{walk.title}({walk.label})"),
                       nodes.literal_block(code, code, language="python"),
                       nodes.paragraph(text=render_notes_text(walk.notes))]
        return [html, _only_non_html(only_other)]


class CiteCodeRole(SphinxRole):
    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        cid = self.text.strip()
        try:
            citation = get_citation(cid)
        except CitationError as error:
            logger.warning(str(error), location=self.get_location(), type="prefixlab", subtype="citation")
            return [nodes.literal(cid, cid)], []
        label = citation.short_ref
        ref = nodes.reference(label, "", refuri=citation.permalink, classes=["prefixlab-cite-code"])
        ref += nodes.literal(label, label)
        return [ref], []


def _only_non_html(node: nodes.Element) -> nodes.Node:
    only = addnodes.only(expr="not html")
    only += node
    return only


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("citation", CitationDirective)
    app.add_directive("code-walkthrough", WalkthroughDirective)
    app.add_role("cite-code", CiteCodeRole())
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
