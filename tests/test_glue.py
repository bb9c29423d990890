"""Glued values must read back as the text we meant (MyST-NB literal_evals a glued text/plain)."""
import ast
import json
from pathlib import Path

import pytest
from myst_nb.core.variables import format_plain_text

from prefixlab.presenting.book.glue import shown

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(ROOT.glob("book/**/*.ipynb")) + sorted(ROOT.glob("labs/**/*.ipynb"))


def _glued(nb_path):
    for cell in json.loads(nb_path.read_text(encoding="utf-8"))["cells"]:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                yield name, out["data"]["application/papermill.record/text/plain"]


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_glued_value_reads_back_as_a_string(nb_path):
    for name, text in _glued(nb_path):
        value = ast.literal_eval(text)
        assert isinstance(value, str), f"{nb_path.name}: {name} would show as {format_plain_text(text, 's')!r}"


def test_thousands_are_not_read_back_as_tuples():
    assert format_plain_text(repr(shown(1796)), "s") == "1,796"
    assert shown(True) == "是" and shown(0.5) == "0.50"
