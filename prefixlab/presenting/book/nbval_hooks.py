"""nbval collection hook, plus the rules that keep notebooks re-runnable byte for byte.

Enable it from the root ``conftest.py``::

    # nbval: skip comparing outputs that are not stable text (figure HTML/JSON).
    from prefixlab.presenting.book.nbval_hooks import pytest_collectstart  # noqa: F401

and run ``pytest --nbval --nbval-current-env --nbval-sanitize-with .nbval_sanitize.cfg
book labs``.

What is skipped, and why: a plotly figure is stored as ``text/html`` (random-free, but it
embeds the whole figure JSON and plotly's template, which changes with the plotly
version) and ``application/vnd.plotly.v1+json`` (a dict; nbval cannot sanitise dicts).
``text/plain`` is still compared everywhere — so every number the prose relies on must
also be *printed* (or glued) as text, where nbval checks it.

Writing deterministic notebooks:

- Numbers come from ``data/`` (recordings, price tables), never from a live server or
  the clock; print them with explicit formats (``f"{x:.4f}"``, ``f"{n:,}"``).
- No timestamps, durations, absolute paths (CI runs in another folder: print paths
  relative to the repo root), object reprs with ``0x…`` addresses, or random ids.
- Sort sets and directory listings before printing; seed any randomness.
- Silence library warnings in the setup cell: anything on stderr is compared too.
- Save notebooks *with* outputs; a cell stored without outputs is not compared at all.
- Widgets reach the static page only through the widget state saved in the notebook
  metadata: re-run with ``jupyter nbconvert --to notebook --execute --inplace X.ipynb``
  (nbclient stores the state), as ``tests/fixtures/make_offline_demo.py`` does.
- The first cell calls ``prefixlab.presenting.book.setup_notebook()``, so figures are saved with the
  HTML the book can show (tests/test_book_config.py rejects JSON-only figures).
- Tag a cell ``nbval-ignore-output`` only when its output cannot be made stable (and
  say why in the cell); never to hide a number that moved.
"""

from __future__ import annotations

SKIP_MIME_TYPES = (
    "text/html",
    "application/javascript",
    "application/vnd.plotly.v1+json",
)


def pytest_collectstart(collector) -> None:
    path = getattr(collector, "path", None)
    if path is not None and path.suffix == ".ipynb" and hasattr(collector, "skip_compare"):
        collector.skip_compare = tuple(collector.skip_compare) + SKIP_MIME_TYPES
