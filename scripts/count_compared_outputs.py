"""Count the figure outputs and plotted numbers nbval compares (re-measures tests.md's D1).

    .venv/bin/python scripts/count_compared_outputs.py           # with today's nbval hook
    .venv/bin/python scripts/count_compared_outputs.py --before  # with the old skip list

A figure output is compared when its cell is not tagged ``nbval-ignore-output``/``nbval-skip``
and its plotly MIME type is not in the hook's skip list. Plotted numbers are the numeric
values in the traces' x/y/z/text/customdata/values/base (binary ``bdata`` arrays decoded).
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prefixlab.presenting.book.nbval_hooks import PLOTLY_MIME, SKIP_MIME_TYPES  # noqa: E402

OLD_SKIP = ("text/html", "application/javascript", PLOTLY_MIME)
DATA_KEYS = ("x", "y", "z", "text", "customdata", "values", "base")
IGNORE_TAGS = {"nbval-ignore-output", "nbval-skip", "raises-exception"}


def numbers(value) -> int:
    if isinstance(value, dict) and "bdata" in value:
        return int(np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).size)
    if isinstance(value, list):
        return sum(numbers(item) for item in value)
    return int(isinstance(value, (int, float)) and not isinstance(value, bool))


def count(skip: tuple[str, ...]) -> dict[str, int]:
    totals = dict.fromkeys(("figures", "figures_compared", "numbers", "numbers_compared",
                            "html_only", "html_only_compared"), 0)
    notebooks = sorted((ROOT / "book").rglob("*.ipynb")) + sorted((ROOT / "labs").rglob("*.ipynb"))
    for path in notebooks:
        if ".ipynb_checkpoints" in path.parts:
            continue
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            ignored = bool(IGNORE_TAGS & set(cell.get("metadata", {}).get("tags", [])))
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if PLOTLY_MIME in data:
                    n = sum(numbers(trace.get(key)) for trace in data[PLOTLY_MIME].get("data", [])
                            for key in DATA_KEYS)
                    compared = not ignored and PLOTLY_MIME not in skip
                    totals["figures"] += 1
                    totals["numbers"] += n
                    totals["figures_compared"] += compared
                    totals["numbers_compared"] += n if compared else 0
                elif "text/html" in data and set(data) <= {"text/html"}:
                    totals["html_only"] += 1
                    totals["html_only_compared"] += not ignored and "text/html" not in skip
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", action="store_true", help="use the old hook's skip list")
    args = parser.parse_args()
    t = count(OLD_SKIP if args.before else SKIP_MIME_TYPES)
    print(f"figure outputs compared: {t['figures_compared']} of {t['figures']}")
    print(f"plotted numbers compared: {t['numbers_compared']:,} of {t['numbers']:,}")
    print(f"HTML-only outputs compared: {t['html_only_compared']} of {t['html_only']}")


if __name__ == "__main__":
    main()
