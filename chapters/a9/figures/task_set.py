"""A9·1: the task set and what the shipped evaluation measured on it, per task and design."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from prefixlab.eval.harness import read_results
from prefixlab.eval.tasks import load_tasks

from chapters.a9.paths import EVAL, TASKS

DESIGN_NAMES = {"text": "text", "constrained": "constrained", "oracle": "oracle"}


def rows(recording: Path = EVAL) -> list[dict]:
    return read_results(recording)


def limits(recording: Path = EVAL) -> dict:
    """The recorded limits of one run: max_rounds, max_tokens, run_seconds, check_seconds."""
    return json.loads((recording / "manifest.json").read_text(encoding="utf-8"))["limits"]


def tasks():
    return load_tasks(TASKS)


def passed(rows_: list[dict], design: str) -> tuple[int, int]:
    """(runs that passed, runs) of one design."""
    mine = [r for r in rows_ if r["design"] == design]
    return sum(r["passed"] for r in mine), len(mine)


def designs(rows_: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["design"] for r in rows_))


def why_kind(why: str) -> str:
    """The first words of a row's why: pass, check failed, timeout, stopped, check crashed, workspace damaged."""
    return why.split(":")[0]


def why_counts(rows_: list[dict], design: str) -> Counter:
    return Counter(why_kind(r["why"]) for r in rows_ if r["design"] == design)


def shape_table(tasks_) -> list[list]:
    """One row per task: id, its fail_to_pass and pass_to_pass test counts, the oracle's calls."""
    return [[t.id, len(t.fail_to_pass), len(t.pass_to_pass), len(t.oracle)] for t in tasks_]


def results_table(rows_: list[dict], tasks_) -> tuple[list[str], list[list]]:
    """Columns and one row per task: passed/runs under each live design, and the oracle's verdict."""
    live = [d for d in designs(rows_) if d != "oracle"]
    columns = ["任务", *live, "oracle"]
    out = []
    for t in tasks_:
        line = [t.id]
        for d in live:
            mine = [r for r in rows_ if r["task"] == t.id and r["design"] == d]
            line.append(f"{sum(r['passed'] for r in mine)}/{len(mine)}" if mine else "–")
        oracle = [r for r in rows_ if r["task"] == t.id and r["design"] == "oracle"]
        line.append(("通过" if all(r["passed"] for r in oracle) else "未通过") if oracle else "–")
        out.append(line)
    return columns, out


def failure_table(rows_: list[dict]) -> tuple[list[str], list[list]]:
    """Why the live runs failed: one row per kind of why, a column per live design."""
    live = [d for d in designs(rows_) if d != "oracle"]
    kinds = sorted({why_kind(r["why"]) for r in rows_ if r["design"] in live},
                   key=lambda k: (k != "pass", k))
    return ["结果", *live], [[k, *[why_counts(rows_, d)[k] for d in live]] for k in kinds]


def example_failure(rows_: list[dict]) -> dict | None:
    """A live run whose check failed (the lesson shows its why), else any live failure."""
    live = [r for r in rows_ if r["design"] != "oracle" and not r["passed"]]
    return next((r for r in live if r["why"].startswith("check failed")), live[0] if live else None)


def tool_calls(row: dict, recording: Path = EVAL) -> list[str]:
    """The names of the tools a run's model called, in order (from its session file)."""
    names = []
    with open(recording / row["session"], encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if entry["type"] == "message" and entry["message"]["role"] == "assistant":
                names += [c["function"]["name"] for c in entry["message"].get("tool_calls") or []]
    return names


def edited(rows_: list[dict], design: str, recording: Path = EVAL) -> tuple[int, int]:
    """(runs of ``design`` whose model called edit_file or write_file at least once, runs)."""
    mine = [r for r in rows_ if r["design"] == design]
    return sum(bool({"edit_file", "write_file"} & set(tool_calls(r, recording))) for r in mine), len(mine)


def first_calls(rows_: list[dict], design: str, recording: Path = EVAL) -> Counter:
    """How the runs of ``design`` began: the first tool called, or "no call" (a text answer)."""
    return Counter((tool_calls(r, recording) or ["no call"])[0] for r in rows_ if r["design"] == design)


def repeated(rows_: list[dict], design: str, recording: Path = EVAL) -> int:
    """Runs of ``design`` in which the model made the same call (tool and arguments) twice in a row."""
    count = 0
    for r in (r for r in rows_ if r["design"] == design):
        calls = []
        with open(recording / r["session"], encoding="utf-8") as f:
            for line in f:
                entry = json.loads(line)
                if entry["type"] == "message" and entry["message"]["role"] == "assistant":
                    calls += [(c["function"]["name"], c["function"]["arguments"])
                              for c in entry["message"].get("tool_calls") or []]
        count += any(a == b for a, b in zip(calls, calls[1:]))
    return count
