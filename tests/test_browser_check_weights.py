"""The page-weight part of scripts/browser_check.py (the browser part needs a build)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def load_browser_check():
    spec = importlib.util.spec_from_file_location("browser_check", REPO_ROOT / "scripts/browser_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lesson_pages_have_a_4_mb_budget_and_labs_none():
    bc = load_browser_check()
    assert bc.page_budget("book/a6-2-memory-timing.html") == 4_000_000
    assert bc.page_budget("book/a6/a6-2-memory-timing.html") == 4_000_000
    assert bc.page_budget("labs/calculator.html") is None


def test_weight_tables_list_pages_and_files():
    bc = load_browser_check()
    weights = {
        "book/a.html": {"book/a.html": 300_000, "_static/plotly.js": 3_900_000, "_static/x.css": 5},
        "labs/b.html": {"labs/b.html": 20_000, "_static/plotly.js": 3_900_000},
    }
    table = bc.weight_tables(weights)
    assert "book/a.html" in table and "4,200,005" in table and "OVER" in table
    lab_line = next(line for line in table.splitlines() if line.strip().startswith("labs/b.html"))
    assert lab_line.rstrip().endswith("-"), "labs have no budget"
    plotly_line = next(line for line in table.splitlines() if line.endswith("_static/plotly.js"))
    assert plotly_line.split()[:2] == ["3,900,000", "2"], "size and number of pages loading it"
    assert "1 smaller files" in table
