"""Stored notebook outputs must not hold the path of the machine that executed them.

nbval compares each stored output with a fresh run; an output that prints an absolute path passes on
the machine that executed the notebook and fails on every other clone (it did: the A8 lab's bill
header printed the executing clone's absolute path). Executing a notebook here stores this checkout's root, so look for it.
"""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for d in ("book", "labs") for p in (ROOT / d).rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def test_no_stored_output_holds_this_checkouts_path():
    assert NOTEBOOKS
    found = []
    for path in NOTEBOOKS:
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if str(ROOT) in json.dumps(cell.get("outputs", []), ensure_ascii=False):
                found.append(f"{path.relative_to(ROOT)} cell {i}")
    assert not found, f"outputs print an absolute path ({ROOT}); print it relative instead: {found}"
