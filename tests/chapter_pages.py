"""Test helper: what a reader of a chapter notebook sees above a given code cell."""
from __future__ import annotations

import json
from pathlib import Path


def notebook_cells(chapter: Path) -> list[dict]:
    return json.loads(chapter.read_text(encoding="utf-8"))["cells"]


def text_before(chapter: Path, marker: str) -> str:
    """Everything a reader sees above the first code cell containing ``marker``: prose and outputs."""
    parts = []
    for cell in notebook_cells(chapter):
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and marker in source:
            return "\n".join(parts)
        if cell["cell_type"] == "markdown":
            parts.append(source)
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            for value in out.get("data", {}).values():
                parts.append(value if isinstance(value, str) else "".join(value) if isinstance(value, list)
                             else json.dumps(value, ensure_ascii=False))
    raise AssertionError(f"no code cell with {marker!r}")
