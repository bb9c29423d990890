"""Passages the book shares with the reference lesson, word for word.

    .venv/bin/python scripts/shared_passages.py [--min 10] [--reference DIR]

The reference lesson (``../shared/reference/`` next to the repository) is a design reference that learners and CI do
not have: without it the script says so and exits 0. Each markdown cell of every page in
``_toc.yml`` (and the labs) is compared with each reference text; a shared passage is a maximal
run of at least ``--min`` characters (whitespace ignored) that occurs in both. Not counted: code
(fenced and inline), link targets, glue roles, quotations (「…」, “…”, > lines), names (a run that is
part of a page's title: the lesson titles are the course plan's) and runs with fewer than half
Chinese characters (identifiers, numbers).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The workplace keeps the reference next to the repository (../shared/reference); learners have none.
REFERENCE = ROOT.parent / "shared" / "reference"
HAN = re.compile(r"[\u4e00-\u9fff]")


def normalized(text: str) -> str:
    return re.sub(r"\s+", "", text)


def book_prose(cell: str) -> str:
    cell = re.sub(r"```.*?```", " ", cell, flags=re.S)
    cell = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", cell)
    cell = re.sub(r"`[^`]*`", " ", cell)
    cell = re.sub(r"\]\([^)]*\)", "]", cell)
    cell = re.sub(r"^\s*>.*$", " ", cell, flags=re.M)
    cell = re.sub(r"「[^」]*」|“[^”]*”", " ", cell)
    cell = re.sub(r"[*_#|\[\]]", "", cell)  # markup, so **粗体** matches 粗体
    return cell


def pages() -> list[Path]:
    files = sorted((ROOT / "book").rglob("*.ipynb")) + sorted((ROOT / "labs").rglob("*.ipynb"))
    return [f for f in files if ".ipynb_checkpoints" not in f.parts]


def cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]


def titles() -> list[str]:
    out = []
    for path in pages():
        for cell in cells(path):
            out += [normalized(m) for m in re.findall(r"^#\s+(.*)$", cell, flags=re.M)]
    return out


def shared_runs(text: str, reference: str, shingles: set[str], size: int) -> list[str]:
    """Maximal runs of ``text`` made of ``size``-grams that all occur in ``reference``."""
    runs, start, end = [], None, None
    for i in range(len(text) - size + 1):
        if text[i:i + size] in shingles:
            if start is None or i > end - size + 1:
                if start is not None:
                    runs.append(text[start:end])
                start = i
            end = i + size
    if start is not None:
        runs.append(text[start:end])
    return [r for r in runs if len(HAN.findall(r)) * 2 >= len(r)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=int, default=10, help="shortest passage counted (characters)")
    parser.add_argument("--reference", type=Path, default=REFERENCE)
    args = parser.parse_args()
    refs = sorted(args.reference.glob("*.txt")) if args.reference.is_dir() else []
    if not refs:
        print(f"no reference texts in {args.reference}: nothing to compare (learners and CI do not have it)")
        return 0
    reference = "\n".join(normalized(r.read_text(encoding="utf-8")) for r in refs)
    shingles = {reference[i:i + args.min] for i in range(len(reference) - args.min + 1)}
    names = titles()
    total = 0
    for path in pages():
        found = []
        for n, cell in enumerate(cells(path)):
            text = normalized(book_prose(cell))
            found += [(n, run) for run in shared_runs(text, reference, shingles, args.min)
                      if not any(run.strip(",。?:") in t for t in names)]
        if found:
            print(f"{path.relative_to(ROOT)}: {len(found)}")
            for n, run in found:
                print(f"  markdown cell {n}: {run}")
        total += len(found)
    print(f"\n{total} shared passages of >= {args.min} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
