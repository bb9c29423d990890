"""nbval compares figures: a changed plotted number fails, plotly's own churn does not."""

from __future__ import annotations

import base64
import copy
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np

from prefixlab.presenting.book.nbval_hooks import (
    PLOTLY_MIME,
    SKIP_MIME_TYPES,
    sanitize_html,
    sanitize_plotly_json,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
# A short page with one figure whose y values are a float64 bdata array.
NOTEBOOK = REPO_ROOT / "book/a1/a1-2-why-round-20-costs-more.ipynb"


def _figure_cell(nb):
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if PLOTLY_MIME in output.get("data", {}):
                return index, output
    raise AssertionError(f"{NOTEBOOK.name} has no figure")


def _bump_first_number(trace_values: dict) -> None:
    array = np.frombuffer(base64.b64decode(trace_values["bdata"]), dtype=trace_values["dtype"]).copy()
    array[0] += 1
    trace_values["bdata"] = base64.b64encode(array.tobytes()).decode()


def test_figures_are_not_skipped():
    assert PLOTLY_MIME not in SKIP_MIME_TYPES
    assert "text/html" not in SKIP_MIME_TYPES


def test_sanitizer_keeps_every_number_and_drops_only_plotly_churn():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    _, output = _figure_cell(nb)
    fig = output["data"][PLOTLY_MIME]
    other_plotly = copy.deepcopy(fig)
    other_plotly["layout"]["template"] = {"layout": {"font": {"color": "red"}}}
    other_plotly["data"][0]["uid"] = "8d1c0b9e-0000-4000-8000-000000000000"
    assert sanitize_plotly_json(other_plotly) == sanitize_plotly_json(fig)
    changed = copy.deepcopy(fig)
    _bump_first_number(changed["data"][0]["y"])
    assert sanitize_plotly_json(changed) != sanitize_plotly_json(fig)
    html = output["data"]["text/html"]
    html = "".join(html) if isinstance(html, list) else html
    other_id = re.sub(r"fig-[0-9a-f]{12}-", "fig-0123456789ab-", html)
    assert other_id != html
    assert sanitize_html(other_id) == sanitize_html(html)
    assert sanitize_html(html) == sanitize_html(html.replace('"template":{', '"template":{"x":1,', 1))
    y = fig["data"][0]["y"]["bdata"]
    new_y = copy.deepcopy(fig["data"][0]["y"])
    _bump_first_number(new_y)
    assert y in html.replace("\\u002f", "/")
    assert sanitize_html(html.replace("\\u002f", "/").replace(y, new_y["bdata"])) != sanitize_html(
        html.replace("\\u002f", "/"))


def test_nbval_fails_on_one_changed_plotted_number():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    index, output = _figure_cell(nb)
    _bump_first_number(output["data"][PLOTLY_MIME]["data"][0]["y"])
    copy_path = NOTEBOOK.with_name(f"_nbval_mutant_{os.getpid()}.ipynb")
    try:
        nbformat.write(nb, copy_path)
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "--nbval", "--nbval-current-env",
             "--nbval-sanitize-with", ".nbval_sanitize.cfg", "-p", "no:cacheprovider",
             "-p", "no:xdist", str(copy_path.relative_to(REPO_ROOT))],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
        )
    finally:
        copy_path.unlink(missing_ok=True)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "1 failed" in result.stdout, result.stdout[-3000:]
    assert f"mismatch '{PLOTLY_MIME}'" in result.stdout, result.stdout[-3000:]
