"""Plotly figures that show in JupyterLab *and* on the static book pages.

Under a kernel plotly's default renderer is ``plotly_mimetype``: it stores only
``application/vnd.plotly.v1+json``, which JupyterLab draws but the book cannot (the
figure silently disappears from the HTML). ``use_book_renderer()`` makes every figure
carry two representations:

- ``application/vnd.plotly.v1+json`` for JupyterLab / Binder (plotly's lab extension);
- ``text/html``: a ``<div>`` plus a call to the page's global ``Plotly``. The book
  loads plotly.js once per page from its own ``_static/prefixlab-vendor/`` (see
  ``prefixlab.presenting.book.sphinx_assets``); no CDN, and no 4 MB copy per figure.

The div id is derived from the figure and a per-kernel counter, so re-running a notebook
from the top writes byte-identical outputs (clean git diffs).

Every figure carries its template. ``use_book_template()`` makes new figures use a slim
copy of plotly's default template: the same layout defaults (colours, fonts, axes) and the
data defaults of the trace types the book draws, without the defaults for trace and
subplot types no figure uses (surface, scattermapbox, polar, geo …), which plotly would
otherwise write into every figure, twice per output. The page's ``text/html`` also keeps
Chinese text as UTF-8 instead of ``\\uXXXX`` escapes (half the bytes, same string in JS).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re

import plotly.graph_objects as go
import plotly.io as pio
from plotly.io.base_renderers import MimetypeRenderer

RENDERER_NAME = "prefixlab_book"
DEFAULT_RENDERERS = f"plotly_mimetype+{RENDERER_NAME}"
# Static pages have no kernel: keep the toolbar small and the figure width-responsive.
FIGURE_CONFIG = {"displaylogo": False, "responsive": True}

TEMPLATE_NAME = "prefixlab"
BASE_TEMPLATE = "plotly"  # plotly's default: the look every figure was designed with
# Trace types the book's figures use. The vendored plotly.js bundle must draw each one and
# a figure may use no other (both checked over every notebook by tests/test_book_config.py):
# a new type gets plotly's default look by being listed here.
BOOK_TRACE_TYPES = ("bar", "heatmap", "scatter")
# Layout defaults of subplot kinds no figure has (3-D scenes, maps, polar, ternary).
UNUSED_LAYOUT_KEYS = ("geo", "mapbox", "polar", "scene", "ternary")
# \uXXXX escapes in JSON; an even run of backslashes before the u is an escaped backslash.
_JSON_ESCAPE = re.compile(r"(\\+)u([0-9a-fA-F]{4})")


class BookHtmlRenderer(MimetypeRenderer):
    """Renders ``text/html`` that expects plotly.js to be loaded by the page."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def to_mimebundle(self, fig_dict: dict) -> dict[str, str]:
        payload = json.dumps(fig_dict, sort_keys=True, default=str).encode()
        div_id = f"fig-{hashlib.sha256(payload).hexdigest()[:12]}-{next(self._counter)}"
        html = pio.to_html(
            fig_dict,
            include_plotlyjs=False,
            include_mathjax=False,
            full_html=False,
            div_id=div_id,
            config=FIGURE_CONFIG,
            validate=False,
        )
        return {"text/html": unescape_non_ascii(html)}


def unescape_non_ascii(text: str) -> str:
    """Write ``\\uXXXX`` escapes of non-ASCII characters as the characters themselves.

    plotly's JSON escapes them all (six bytes for a Chinese character that UTF-8 writes in
    three). ASCII escapes stay: plotly writes ``<``, ``>``, ``/`` as ``\\u003c`` … so the
    JSON cannot close its <script>; so do U+2028/U+2029 (line breaks to older JavaScript)
    and surrogate pairs (characters outside the BMP)."""

    def replace(match: re.Match) -> str:
        backslashes, code = match.group(1), int(match.group(2), 16)
        if len(backslashes) % 2 == 0 or code < 0x80 or 0xD800 <= code <= 0xDFFF or code in (0x2028, 0x2029):
            return match.group(0)
        return backslashes[:-1] + chr(code)

    return _JSON_ESCAPE.sub(replace, text)


def slim_template() -> go.layout.Template:
    """plotly's default template without the parts no book figure uses."""
    full = pio.templates[BASE_TEMPLATE].to_plotly_json()
    data = {kind: full["data"][kind] for kind in BOOK_TRACE_TYPES if kind in full["data"]}
    layout = {key: value for key, value in full["layout"].items() if key not in UNUSED_LAYOUT_KEYS}
    return go.layout.Template(data=data, layout=layout)


def use_book_template() -> None:
    """Figures created from now on carry the slim template (see the module docstring)."""
    pio.templates[TEMPLATE_NAME] = slim_template()
    pio.templates.default = TEMPLATE_NAME


def use_book_renderer() -> None:
    """Make ``fig.show()`` / a bare ``fig`` emit both the plotly JSON and the book's HTML."""
    pio.renderers[RENDERER_NAME] = BookHtmlRenderer()
    pio.renderers.default = DEFAULT_RENDERERS
