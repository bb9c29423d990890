"""How long does ``make test`` take, and how long will it take with eight chapters?

    python benchmarks/bench_test_time.py                         # offline tests and every notebook, serial and parallel
    python benchmarks/bench_test_time.py book/a6/index.ipynb     # only these notebooks (a quick check)
    python benchmarks/bench_test_time.py --no-offline --workers 2

Measured (wall clock, this machine, each run a fresh pytest process like ``make test``):

- offline: ``pytest`` (no nbval), serially and with ``-n WORKERS --dist loadfile``;
- nbval serial: every notebook on its own, one after another (the per-notebook times);
- nbval parallel: all notebooks in one run with ``-n WORKERS --dist loadfile``, as ``make test`` runs them.

The projection assumes every chapter costs what the shipped ones cost on average: the course-wide labs
once, plus eight times a chapter's notebooks, shared by the workers (never less than the longest notebook);
the offline suite is taken as measured (each chapter's own tests add to it).
Do not run it while other heavy jobs share the cores: the numbers would be theirs too.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", ".nbval_sanitize.cfg"]
BASE = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
CHAPTERS_PLANNED = 8
BUDGET_SECONDS = 6 * 60


def notebooks() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for folder in ("book", "labs")
                  for p in (ROOT / folder).rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def chapter_of(notebook: str) -> str | None:
    """``book/a6/x.ipynb`` -> a6; a course-wide page or lab (``labs/calculator.ipynb``) -> None."""
    parts = notebook.split("/")
    return parts[1] if len(parts) > 2 else None


def timed(args: list[str]) -> tuple[float, int]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    start = time.perf_counter()
    done = subprocess.run(BASE + args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, done.returncode


def parallel(workers: str) -> list[str]:
    return ["-n", workers, "--dist", "loadfile"]


def table(rows: list[tuple[str, ...]], head: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths))  # noqa: E731
    return "\n".join([line(head), line(tuple("-" * w for w in widths)), *map(line, rows)])


def minutes(seconds: float) -> str:
    return f"{seconds:7.1f} s ({seconds / 60:.1f} min)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebooks to time (default: every one under book/ and labs/)")
    parser.add_argument("--workers", default=str(os.cpu_count() or 2), help="xdist workers for the parallel runs")
    parser.add_argument("--no-offline", dest="offline", action="store_false", help="skip the offline test suite")
    parser.add_argument("--no-serial", dest="serial", action="store_false", help="skip the one-by-one nbval runs")
    args = parser.parse_args(argv)
    chosen = args.notebooks or notebooks()

    runs: list[tuple[str, str, str, str]] = []
    offline_parallel = None
    if args.offline:
        for label, extra in (("offline pytest", []), ("offline pytest", parallel(args.workers))):
            seconds, code = timed(extra)
            runs.append((label, "1" if not extra else args.workers, minutes(seconds), "ok" if code == 0 else f"exit {code}"))
            offline_parallel = seconds
    per_notebook: dict[str, float] = {}
    if args.serial:
        for nb in chosen:
            seconds, code = timed(NBVAL + [nb])
            per_notebook[nb] = seconds
            runs.append((f"nbval {nb}", "1", minutes(seconds), "ok" if code == 0 else f"exit {code}"))
        runs.append(("nbval, one by one (sum)", "1", minutes(sum(per_notebook.values())), ""))
    seconds, code = timed(NBVAL + parallel(args.workers) + chosen)
    runs.append(("nbval, all in one run", args.workers, minutes(seconds), "ok" if code == 0 else f"exit {code}"))
    print(table(runs, ("run", "workers", "wall clock", "result")))

    if per_notebook:
        chapters = {chapter_of(nb) for nb in per_notebook} - {None}
        shared = sum(t for nb, t in per_notebook.items() if chapter_of(nb) is None)
        per_chapter = sum(t for nb, t in per_notebook.items() if chapter_of(nb)) / max(len(chapters), 1)
        serial_total = shared + CHAPTERS_PLANNED * per_chapter
        workers = int(args.workers)
        nbval_parallel = max(max(per_notebook.values()), serial_total / workers)
        print(f"\nprojection for {CHAPTERS_PLANNED} chapters ({len(chapters)} measured, {len(per_notebook)} notebooks):")
        print(f"  nbval serially             {minutes(serial_total)}")
        print(f"  nbval on {workers} workers        {minutes(nbval_parallel)}")
        if offline_parallel is not None:
            total = offline_parallel + nbval_parallel
            verdict = "within" if total <= BUDGET_SECONDS else "OVER"
            print(f"  make test (offline + nbval) {minutes(total)}: {verdict} the {BUDGET_SECONDS // 60}-minute budget")
        if args.notebooks:
            print("  (only the notebooks named on the command line: not the whole course)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
