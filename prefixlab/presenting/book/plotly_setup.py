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
"""

from __future__ import annotations

import hashlib
import itertools
import json

import plotly.io as pio
from plotly.io.base_renderers import MimetypeRenderer

RENDERER_NAME = "prefixlab_book"
DEFAULT_RENDERERS = f"plotly_mimetype+{RENDERER_NAME}"
# Static pages have no kernel: keep the toolbar small and the figure width-responsive.
FIGURE_CONFIG = {"displaylogo": False, "responsive": True}


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
        return {"text/html": html}


def use_book_renderer() -> None:
    """Make ``fig.show()`` / a bare ``fig`` emit both the plotly JSON and the book's HTML."""
    pio.renderers[RENDERER_NAME] = BookHtmlRenderer()
    pio.renderers.default = DEFAULT_RENDERERS
