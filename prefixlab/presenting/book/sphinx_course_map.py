"""Sphinx extension: the course map, drawn from ``_toc.yml`` (see ``course_map``).

    ```{course-map}
    ```

On the front page it lists every part, chapter and lesson with links; on a chapter's page, or a
lesson's, the same map marks that chapter "本章". A page named in the table of contents but
missing, or without a title, is a build warning (an error under ``-W``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from prefixlab.presenting.book.course_map import CourseMapError, Entry, chapter_of, course_map, pages, page_file

logger = logging.getLogger(__name__)
HERE = "本章"


class CourseMapDirective(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        root = Path(self.env.srcdir)
        toc = root / getattr(self.config, "external_toc_path", "_toc.yml")  # an absolute path stays as it is
        try:
            parts = course_map(toc, root)
            for page in pages(parts):
                self.env.note_dependency(str(page_file(page, root)))  # a retitled page redraws the map
        except CourseMapError as error:
            logger.warning(str(error), location=self.get_location(), type="prefixlab", subtype="course_map")
            return []
        self.env.note_dependency(str(toc))
        current = chapter_of(parts, self.env.docname)
        out = nodes.container(classes=["prefixlab-course-map"])
        for part in parts:
            if part.caption:
                out += nodes.rubric(part.caption, part.caption)
            out += self._list(part.entries, current)
        return [out]

    def _list(self, entries: tuple[Entry, ...], current: Entry | None) -> nodes.bullet_list:
        items = nodes.bullet_list()
        for entry in entries:
            para = nodes.paragraph()
            ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=f"/{entry.page}",
                                        refexplicit=True, refwarn=True, refdoc=self.env.docname)
            ref += nodes.inline(entry.title, entry.title)
            para += ref
            if entry is current:
                para += nodes.Text(f"({HERE})")
            item = nodes.list_item()
            item += para
            if entry.children:
                item += self._list(entry.children, None)
            items += item
        return items


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("course-map", CourseMapDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
