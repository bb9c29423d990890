"""Count what nbval compares and what the mutation runs kill: issue 42's audit counts, before -> after.

    .venv/bin/python scripts/count_compared_outputs.py           # today's tree, today's nbval hook
    .venv/bin/python scripts/count_compared_outputs.py --before  # today's notebooks, the old skip list
    .venv/bin/python scripts/count_compared_outputs.py --at 284be56   # the notebooks and hook of a commit
    .venv/bin/python scripts/count_compared_outputs.py --report  # the audit's tree (284be56) -> today

A figure output is compared when its cell is not tagged ``nbval-ignore-output``/``nbval-skip``
and its plotly MIME type is not in the hook's skip list. Plotted numbers are the numeric
values in the traces' x/y/z/text/customdata/values/base (binary ``bdata`` arrays decoded).
A glued value (a ``glue`` output, MIME ``application/papermill.record/...``) is excluded from
comparison when its cell is tagged ``nbval-ignore-output``/``nbval-skip``.
``--report`` adds the rule mutants from the stored runs of ``benchmarks/mutate_rules.py``
(``benchmarks/mutation/<rule>.before.json`` and ``.after.json``, read by
``benchmarks/mutation_report.py``): surviving llama.cpp mutants, cloud-rule mutants killed.
"""

from __future__ import annotations

import argparse
import ast
import base64
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prefixlab.presenting.book.nbval_hooks import PLOTLY_MIME, SKIP_MIME_TYPES  # noqa: E402

OLD_SKIP = ("text/html", "application/javascript", PLOTLY_MIME)
DATA_KEYS = ("x", "y", "z", "text", "customdata", "values", "base")
IGNORE_TAGS = {"nbval-ignore-output", "nbval-skip", "raises-exception"}
GLUE_MIME = "application/papermill.record/"
AUDIT = "284be56"  # the HEAD ../shared/reviews/tests.md audited (issue 42's "before")
HOOK = "prefixlab/presenting/book/nbval_hooks.py"
CLOUD_RULES = ("anthropic", "openai", "deepseek", "kimi", "qwen")


def numbers(value) -> int:
    if isinstance(value, dict) and "bdata" in value:
        return int(np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).size)
    if isinstance(value, list):
        return sum(numbers(item) for item in value)
    return int(isinstance(value, (int, float)) and not isinstance(value, bool))


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def notebooks(rev: str | None) -> list[tuple[str, dict]]:
    """(path, notebook JSON) of every book page and lab, from the work tree or from commit ``rev``."""
    if rev is None:
        paths = sorted((ROOT / "book").rglob("*.ipynb")) + sorted((ROOT / "labs").rglob("*.ipynb"))
        return [(str(p.relative_to(ROOT)), json.loads(p.read_text(encoding="utf-8")))
                for p in paths if ".ipynb_checkpoints" not in p.parts]
    names = [n for n in _git("ls-tree", "-r", "--name-only", rev, "book", "labs").splitlines()
             if n.endswith(".ipynb") and ".ipynb_checkpoints" not in n]
    by_dir = {"book": sorted(n for n in names if n.startswith("book/")),
              "labs": sorted(n for n in names if n.startswith("labs/"))}
    return [(n, json.loads(_git("show", f"{rev}:{n}"))) for n in by_dir["book"] + by_dir["labs"]]


def skip_list_at(rev: str) -> tuple[str, ...]:
    """The hook's SKIP_MIME_TYPES at commit ``rev``, read from its source (string constants only)."""
    tree = ast.parse(_git("show", f"{rev}:{HOOK}"))
    names = {"PLOTLY_MIME": PLOTLY_MIME}
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["SKIP_MIME_TYPES"]:
            return tuple(e.value if isinstance(e, ast.Constant) else names[e.id] for e in node.value.elts)
    raise SystemExit(f"{rev}:{HOOK} has no SKIP_MIME_TYPES")


def _html_only(data: dict) -> bool:
    """HTML and at most IPython's placeholder text (``<IPython.core.display.HTML object>``)."""
    plain = "".join(data.get("text/plain", ""))
    return set(data) <= {"text/html", "text/plain"} and (not plain or plain.startswith("<IPython.core.display"))


def count(skip: tuple[str, ...], rev: str | None = None, excluded: list | None = None) -> dict[str, int]:
    """The totals; ``excluded`` (if given) gets (notebook, cell index, what) for each output not compared."""
    totals = dict.fromkeys(("figures", "figures_compared", "numbers", "numbers_compared",
                            "html_only", "html_only_compared", "glued", "glued_excluded"), 0)
    for path, notebook in notebooks(rev):
        for index, cell in enumerate(notebook["cells"]):
            ignored = bool(IGNORE_TAGS & set(cell.get("metadata", {}).get("tags", [])))
            if ignored and excluded is not None and cell.get("outputs"):
                excluded.append((path, index, _kinds(cell["outputs"])))
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
                elif "text/html" in data and _html_only(data):
                    totals["html_only"] += 1
                    totals["html_only_compared"] += not ignored and "text/html" not in skip
                if any(k.startswith(GLUE_MIME) for k in data):
                    totals["glued"] += 1
                    totals["glued_excluded"] += ignored
    return totals


def _kinds(outputs: list[dict]) -> str:
    glued = sum(any(k.startswith(GLUE_MIME) for k in o.get("data", {})) for o in outputs)
    figures = sum(PLOTLY_MIME in o.get("data", {}) for o in outputs)
    other = len(outputs) - glued - figures
    return ", ".join(f"{n} {what}" for n, what in ((glued, "glued"), (figures, "figure"), (other, "other")) if n)


def mutant_counts(which: str) -> dict[str, int]:
    """Surviving llama.cpp mutants and cloud-rule mutants killed, from the stored runs."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import mutation_report as mr

    after = {rule: mr.load(rule, "after") for rule in mr.RULES}
    killed = {rule: (mr.killed_before(rule)[0] if which == "before" else after[rule]["killed"]) for rule in mr.RULES}
    return {"llamacpp_mutants": after["llamacpp"]["mutants"],
            "llamacpp_survivors": after["llamacpp"]["mutants"] - killed["llamacpp"],
            "cloud_mutants": sum(after[r]["mutants"] for r in CLOUD_RULES),
            "cloud_killed": sum(killed[r] for r in CLOUD_RULES)}


def report() -> str:
    excluded: list = []
    before, after = count(skip_list_at(AUDIT), AUDIT), count(SKIP_MIME_TYPES, None, excluded)
    mb, ma = mutant_counts("before"), mutant_counts("after")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from mutation_report import BASE
    rows = [
        ("figure outputs compared", f"{before['figures_compared']} of {before['figures']}",
         f"{after['figures_compared']} of {after['figures']}"),
        ("plotted numbers compared", f"{before['numbers_compared']:,} of {before['numbers']:,}",
         f"{after['numbers_compared']:,} of {after['numbers']:,}"),
        ("HTML-only outputs compared", f"{before['html_only_compared']} of {before['html_only']}",
         f"{after['html_only_compared']} of {after['html_only']}"),
        ("glued values excluded from comparison", f"{before['glued_excluded']} of {before['glued']}",
         f"{after['glued_excluded']} of {after['glued']}"),
        ("llama.cpp rule mutants surviving", f"{mb['llamacpp_survivors']} of {mb['llamacpp_mutants']}",
         f"{ma['llamacpp_survivors']} of {ma['llamacpp_mutants']}"),
        ("cloud-rule mutants killed", f"{mb['cloud_killed']} of {mb['cloud_mutants']}",
         f"{ma['cloud_killed']} of {ma['cloud_mutants']}"),
    ]
    lines = ["| count | before | after (this tree) |", "|---|---:|---:|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    lines += ["", f"Before: the notebooks and the nbval hook at {AUDIT} (the tree the audit read); the mutants at "
              f"{BASE} (benchmarks/MUTATION.md's before-runs: the same mutants as its after-runs, under the tests of "
              "that commit). Every surviving mutant's reason is in benchmarks/MUTATION.md.",
              "", "Cells whose outputs nbval does not compare (nbval-ignore-output / nbval-skip) in this tree:"]
    lines += [f"- {path} cell {index}: {what}" for path, index, what in excluded]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", action="store_true", help="use the old hook's skip list")
    parser.add_argument("--at", metavar="REV", help="count the notebooks and the hook of a commit")
    parser.add_argument("--report", action="store_true", help=f"a before ({AUDIT}) -> after table")
    args = parser.parse_args()
    if args.report:
        print(report())
        return
    skip = skip_list_at(args.at) if args.at else OLD_SKIP if args.before else SKIP_MIME_TYPES
    t = count(skip, args.at)
    print(f"figure outputs compared: {t['figures_compared']} of {t['figures']}")
    print(f"plotted numbers compared: {t['numbers_compared']:,} of {t['numbers']:,}")
    print(f"HTML-only outputs compared: {t['html_only_compared']} of {t['html_only']}")
    print(f"glued values excluded from comparison: {t['glued_excluded']} of {t['glued']}")


if __name__ == "__main__":
    main()
