"""Every chapter as a reader sees it: no measured number typed into the prose (glue it from data/)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prefixlab.paths import REPO_ROOT

CHAPTERS = sorted((REPO_ROOT / "book").rglob("*.ipynb"))
# A number of three or more digits, or with thousands separators, outside code, glue roles and links.
NUMBER = re.compile(r"(?<![\w.{`/#-])\d{1,3}(?:,\d{3})+(?![\w])|(?<![\w.{`/#-])\d{3,}(?![\w%])")


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell.get("source", ""))


def typed_numbers(markdown: str) -> list[str]:
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)   # code blocks
    text = re.sub(r"\{glue[^}]*\}`[^`]*`", "", text)           # glue roles
    text = re.sub(r"`[^`]*`", "", text)                        # inline code
    text = re.sub(r"\]\([^)]*\)", "]", text)                   # link targets
    text = re.sub(r"^%.*$", "", text, flags=re.M)              # MyST comments
    return [m.group() for m in NUMBER.finditer(text) if not re.fullmatch(r"(19|20)\d\d", m.group())]


def test_the_checker_finds_typed_numbers():
    assert typed_numbers("命中 1,658 个,重算 168 个") == ["1,658", "168"]
    assert typed_numbers("{glue:text}`refresh_cached` 个,`python -m x 8080`,2026 年,A6·2,第 5 轮") == []


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_no_measured_number_is_typed_into_the_prose(path):
    found = {i: typed_numbers(source(c)) for i, c in enumerate(cells(path)) if c["cell_type"] == "markdown"}
    found = {i: n for i, n in found.items() if n}
    assert not found, f"numbers typed into markdown cells (glue them from data/ instead): {found}"
