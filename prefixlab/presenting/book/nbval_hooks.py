"""nbval collection hook, plus the rules that keep notebooks re-runnable byte for byte.

Enable it from the root ``conftest.py``::

    # nbval: compare figures (plotly JSON and HTML) after a minimal sanitising.
    from prefixlab.presenting.book.nbval_hooks import pytest_collectstart, pytest_itemcollected  # noqa: F401

and run ``pytest --nbval --nbval-current-env --nbval-sanitize-with .nbval_sanitize.cfg
book labs``.

What is compared: every output, figures included. A plotly figure is stored as
``application/vnd.plotly.v1+json`` (a dict) and as ``text/html`` (the same figure JSON inside
a ``<script>``). Both are compared after removing only what plotly generates and what
changes with the plotly version: ``layout.template`` (and its copy inside the HTML), trace
``uid`` s, and the figure's div id (a hash of the figure, template included, and a per-kernel counter).
Every plotted number (x, y, text, customdata, binary ``bdata`` arrays), every label and
the rest of the layout are compared. ``application/javascript`` is not compared (loader glue).
``scripts/count_compared_outputs.py`` counts what is compared.

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

import base64
import copy
import json
import re

import numpy as np

# Never compared: javascript (widget/plotly loader glue, not content).
SKIP_MIME_TYPES = ("application/javascript",)

PLOTLY_MIME = "application/vnd.plotly.v1+json"
# The figure's div id is a hash of the whole figure dict, template included (plotly_setup.py):
# it changes with the plotly version; its counter counts the figures the kernel rendered so far
# (another cell drawing one more changes it). Both are replaced.
_DIV_ID = re.compile(r"fig-[0-9a-f]{12}-\d+")
_TEMPLATE_KEY = '"template":'
_DECODER = json.JSONDecoder()


# Float results of numpy/LAPACK (a polyfit, a cumulative sum of floats) can differ in their
# last bits between machines and BLAS builds; they are compared to this many significant
# digits. Integers, strings and every other value are compared exactly.
FLOAT_DIGITS = 10


def _round_float(x: float) -> float:
    return float(f"{x:.{FLOAT_DIGITS}g}")


def _stable_numbers(value):
    """Trace values with binary ``bdata`` arrays decoded and floats rounded (see FLOAT_DIGITS)."""
    if isinstance(value, dict):
        if set(value) >= {"dtype", "bdata"} and isinstance(value["bdata"], str):
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
            if "shape" in value:
                array = array.reshape([int(n) for n in str(value["shape"]).split(",")])
            return {"dtype": value["dtype"], "values": _stable_numbers(array.tolist())}
        return {key: _stable_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_stable_numbers(item) for item in value]
    if isinstance(value, float):
        return _round_float(value)
    return value


def sanitize_plotly_json(fig: dict) -> dict:
    """The figure without what plotly itself generates: ``layout.template`` (plotly's theme,
    which changes with the plotly version) and trace ``uid`` s (random when present).
    Every trace value (x, y, text, customdata, bdata …) and the rest of the layout stay."""
    fig = copy.deepcopy(fig)
    layout = fig.get("layout")
    if isinstance(layout, dict):
        layout.pop("template", None)
    for trace in fig.get("data") or []:
        if isinstance(trace, dict):
            trace.pop("uid", None)
    return _stable_numbers(fig)


_NEW_PLOT = "Plotly.newPlot("


def sanitize_html(html: str) -> str:
    """The same minimal cut for a figure's HTML: its div id hash, and the figure JSON inside
    ``Plotly.newPlot(id, data, layout, config)`` sanitised as :func:`sanitize_plotly_json`
    does (decoded as JSON, not cut by regex, so nothing else is removed)."""
    html = _DIV_ID.sub("fig-ID", html)
    start = html.find(_NEW_PLOT)
    if start == -1:
        return html
    try:
        pos = start + len(_NEW_PLOT)
        parts = []
        for _ in range(4):  # div id, data, layout, config
            while html[pos] in " \n,":
                pos += 1
            value, pos = _DECODER.raw_decode(html, pos)
            parts.append(value)
    except (json.JSONDecodeError, IndexError):
        return _cut_templates(html)
    _, data, layout, config = parts
    fig = sanitize_plotly_json({"data": data, "layout": layout})
    canonical = json.dumps([fig, config], sort_keys=True, ensure_ascii=False)
    return html[:start] + _NEW_PLOT + canonical + html[pos:]


def _cut_templates(html: str) -> str:
    """Fallback for HTML whose newPlot call does not decode: cut each ``"template":{…}``."""
    out, pos = [], 0
    while (start := html.find(_TEMPLATE_KEY, pos)) != -1:
        value_at = start + len(_TEMPLATE_KEY)
        try:
            _, end = _DECODER.raw_decode(html, value_at)
        except json.JSONDecodeError:
            out.append(html[pos:value_at])
            pos = value_at
            continue
        out.append(html[pos:start] + '"template":"TEMPLATE"')
        pos = end
    out.append(html[pos:])
    return "".join(out)


def _sanitizer(original):
    def sanitize(value):
        if isinstance(value, dict):
            return sanitize_plotly_json(value) if "data" in value and "layout" in value else value
        if isinstance(value, str) and "plotly-graph-div" in value:
            value = sanitize_html(value)
        return original(value)

    return sanitize


def pytest_collectstart(collector) -> None:
    path = getattr(collector, "path", None)
    if path is not None and path.suffix == ".ipynb" and hasattr(collector, "skip_compare"):
        collector.skip_compare = tuple(collector.skip_compare) + SKIP_MIME_TYPES


def pytest_itemcollected(item) -> None:
    """Let each nbval cell sanitise figures before it compares them (nbval sanitises strings
    only and compares dicts as they are)."""
    if type(item).__name__ == "IPyNbCell" and hasattr(item, "sanitize"):
        item.sanitize = _sanitizer(item.sanitize)
