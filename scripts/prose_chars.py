"""汉字 of prose on every page of the book, in _toc.yml order.

    .venv/bin/python scripts/prose_chars.py [--over 6000]

Prose is the markdown cells without code (fenced and inline), glue roles, link targets, directive
options and HTML tags; code cells and their outputs are not counted. "folded" is the part inside
a dropdown (``{dropdown}``, ``:class: dropdown``, ``<details>``), which a reader opens only if
they want it; it is included in "prose". The course's goal is ≤ 6,000 汉字 of prose per lesson.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prefixlab.presenting.book.course_map import page_file, toc_files  # noqa: E402

HAN = re.compile(r"[\u4e00-\u9fff]")
FENCE_OPEN = re.compile(r"^(:{3,}|`{3,})\s*\{(\w[\w-]*)\}(.*)$")


def strip_markup(text: str) -> str:
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"<[^>]+>", " ", text)
    return text


def split_cell(cell: str) -> tuple[str, str]:
    """(prose outside folds, prose inside folds) of one markdown cell."""
    outside, inside = [], []
    stack: list[tuple[str, bool]] = []  # (closing fence, folded)
    in_code = None
    details = 0
    for line in cell.splitlines():
        stripped = line.strip()
        if in_code:
            if stripped.startswith(in_code) and stripped.strip("`") == "":
                in_code = None
            continue
        m = FENCE_OPEN.match(stripped)
        if m:
            fence, name = m.group(1), m.group(2)
            if fence.startswith("`") and name not in ("admonition", "note", "tip", "warning", "dropdown"):
                in_code = fence  # ```{literalinclude}, ```{code-walkthrough}: not prose
                continue
            folded = name == "dropdown" or any(f for _, f in stack)
            stack.append((fence, folded))
            if name in ("dropdown", "admonition"):
                (inside if folded else outside).append(m.group(3))  # its title
            continue
        if stripped.startswith("```"):
            in_code = stripped[:3]
            continue
        if stack and stripped == stack[-1][0]:
            stack.pop()
            continue
        if stack and re.match(r"^:class:.*\bdropdown\b", stripped):
            stack[-1] = (stack[-1][0], True)
            continue
        if re.match(r"^:[\w-]+:", stripped):
            continue
        details += stripped.count("<details") - stripped.count("</details>")
        folded = details > 0 or any(f for _, f in stack)
        (inside if folded else outside).append(line)
    return strip_markup("\n".join(outside)), strip_markup("\n".join(inside))


def count(path: Path) -> tuple[int, int]:
    if path.suffix == ".ipynb":
        cells = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                 if c["cell_type"] == "markdown"]
    else:
        cells = [path.read_text(encoding="utf-8")]
    out = fold = 0
    for cell in cells:
        o, i = split_cell(cell)
        out, fold = out + len(HAN.findall(o)), fold + len(HAN.findall(i))
    return out + fold, fold


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--over", type=int, default=6000, help="flag pages with more prose than this")
    args = parser.parse_args()
    total = 0
    print(f"{'page':55} {'prose':>6} {'folded':>6}")
    for page in toc_files():
        prose, folded = count(page_file(page, ROOT))
        total += prose
        flag = "  over" if prose > args.over else ""
        print(f"{page:55} {prose:6,} {folded:6,}{flag}")
    print(f"{'total':55} {total:6,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
