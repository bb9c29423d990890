#!/usr/bin/env python3
"""Refresh the stored outputs of the book's citation-card cells, and nothing else.

    PYTHONPATH=. python scripts/refresh_citation_outputs.py [--check]

A cell whose whole source is ``citation_card("id")`` gets the output a kernel would store for it
(IPython's DisplayFormatter, lines split the way nbformat writes them). Every other cell, and
every other byte of the notebook, is left alone, so editing data/citations.yml does not force
re-executing whole notebooks; nbval then proves the stored outputs match a fresh run.
``--check`` only lists the cells whose output is stale and exits 1 if there are any.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from IPython.core.formatters import DisplayFormatter

from prefixlab.presenting.book.citations import citation_card

REPO_ROOT = Path(__file__).resolve().parents[1]
CALL = re.compile(r'^citation_card\("([a-z0-9-]+)"\)\s*$')


def dump(nb: dict) -> str:
    """How nbformat writes a notebook (checked byte for byte before anything is written)."""
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def refresh(path: Path, formatter: DisplayFormatter) -> tuple[dict, list[str]]:
    raw = path.read_text(encoding="utf-8")
    nb = json.loads(raw)
    if dump(nb) != raw:
        raise SystemExit(f"{path}: not written the way nbformat writes it; refusing to touch it")
    stale = []
    for cell in nb["cells"]:
        match = CALL.match("".join(cell["source"])) if cell["cell_type"] == "code" else None
        if not match:
            continue
        results = [o for o in cell["outputs"] if o["output_type"] in ("execute_result", "display_data")]
        if len(cell["outputs"]) != 1 or len(results) != 1:
            raise SystemExit(f"{path}: the cell for {match[1]} has no single stored result; run the notebook")
        data, metadata = formatter.format(citation_card(match[1]))
        data = {mime: text.splitlines(keepends=True) for mime, text in data.items()}
        if (data, metadata) != (results[0]["data"], results[0]["metadata"]):
            results[0]["data"], results[0]["metadata"] = data, metadata
            stale.append(match[1])
    return nb, stale


def main() -> int:
    check = "--check" in sys.argv[1:]
    formatter = DisplayFormatter()
    any_stale = False
    for path in sorted((REPO_ROOT / "book").glob("**/*.ipynb")):
        nb, stale = refresh(path, formatter)
        if not stale:
            continue
        any_stale = True
        print(f"{path.relative_to(REPO_ROOT)}: {', '.join(stale)}")
        if not check:
            path.write_text(dump(nb), encoding="utf-8")
    return 1 if check and any_stale else 0


if __name__ == "__main__":
    sys.exit(main())
