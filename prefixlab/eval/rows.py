"""The result rows of an evaluation: ``data/recordings/a9-<name>/results.jsonl``, one JSON object a run.

Every row has exactly these keys (the harness writes them, ``prefixlab.eval``):

    task               the task's id (``data/a9/tasks/<task>/``)
    design             which agent design ran it (``text``, ``constrained``, ``oracle`` ...)
    seed               the run's seed (an int)
    passed             bool: did the hidden check pass
    why                "pass", "check failed: ...", "timeout", "check crashed: ...",
                       "workspace damaged: ..." or "stopped: <reason>"
    prompt_tokens      the run's input tokens, summed over its requests (cached ones included)
    cached_tokens      of those, how many the server read from its cache
    completion_tokens  the run's output tokens
    requests           how many requests the run sent
    seconds            wall-clock seconds of the run (on a shared, loaded machine: not a timing result)
    stop_reason        why the agent loop ended
    session            the run's session file (or recording) relative to the results file's folder

``load`` reads and checks a results file: a bad line is a clear error naming the file, the line and the
key, never a silently dropped run.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

KEYS = ("task", "design", "seed", "passed", "why", "prompt_tokens", "cached_tokens", "completion_tokens",
        "requests", "seconds", "stop_reason", "session")
WHY_PREFIXES = ("pass", "check failed", "timeout", "check crashed", "workspace damaged", "stopped")
_COUNTS = ("prompt_tokens", "cached_tokens", "completion_tokens", "requests")


class ResultsError(ValueError):
    """A results file the evaluation cannot read; the message names the file, the line and the key."""


@dataclass(frozen=True)
class Run:
    """One row of a results file."""

    task: str
    design: str
    seed: int
    passed: bool
    why: str
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    requests: int
    seconds: float
    stop_reason: str | None
    session: str

    @property
    def failure(self) -> str:
        """The kind of outcome: "pass", "check failed", "timeout", ... (``why`` up to its first colon)."""
        return self.why.split(":", 1)[0].strip()


def check(row: dict, where: str = "row") -> Run:
    """One row as a Run, or a ResultsError that says what is wrong with it."""
    if not isinstance(row, dict):
        raise ResultsError(f"{where}: a result row is a JSON object, got {type(row).__name__}")
    missing = [k for k in KEYS if k not in row]
    extra = sorted(set(row) - set(KEYS))
    if missing:
        raise ResultsError(f"{where}: key {missing[0]!r} is missing (a row has exactly {', '.join(KEYS)})")
    if extra:
        raise ResultsError(f"{where}: unknown key {extra[0]!r} (a row has exactly {', '.join(KEYS)})")
    for key in ("task", "design", "why", "session"):
        if not isinstance(row[key], str) or not row[key]:
            raise ResultsError(f"{where}: {key} should be a non-empty string, got {row[key]!r}")
    if not isinstance(row["passed"], bool):
        raise ResultsError(f"{where}: passed should be true or false, got {row['passed']!r}")
    for key in ("seed", *_COUNTS):
        value = row[key]
        if isinstance(value, bool) or not isinstance(value, int) or (key != "seed" and value < 0):
            raise ResultsError(f"{where}: {key} should be a whole number{'' if key == 'seed' else ' >= 0'}, got {value!r}")
    if row["cached_tokens"] > row["prompt_tokens"]:
        raise ResultsError(f"{where}: cached_tokens {row['cached_tokens']} is more than prompt_tokens {row['prompt_tokens']}")
    if isinstance(row["seconds"], bool) or not isinstance(row["seconds"], (int, float)) or row["seconds"] < 0:
        raise ResultsError(f"{where}: seconds should be a number >= 0, got {row['seconds']!r}")
    if row["stop_reason"] is not None and not isinstance(row["stop_reason"], str):
        raise ResultsError(f"{where}: stop_reason should be a string or null, got {row['stop_reason']!r}")
    if row["passed"] != (row["why"] == "pass"):
        raise ResultsError(f"{where}: passed is {row['passed']} but why is {row['why']!r} (why is \"pass\" exactly when passed)")
    if not row["why"].startswith(WHY_PREFIXES):
        raise ResultsError(f"{where}: why {row['why']!r} starts with none of {', '.join(WHY_PREFIXES)}")
    return Run(**{k: row[k] for k in KEYS})


def load(path: Path | str) -> list[Run]:
    """Every row of a results file (a ``results.jsonl``, or the folder that holds one), in file order."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.jsonl"
    if not path.is_file():
        raise ResultsError(f"{path}: no results file")
    runs, seen = [], {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ResultsError(f"{where}: not JSON ({err.msg})") from None
        run = check(row, where)
        key = (run.task, run.design, run.seed)
        if key in seen:
            raise ResultsError(f"{where}: task {run.task!r}, design {run.design!r}, seed {run.seed} "
                               f"is already on line {seen[key]}")
        seen[key] = number
        runs.append(run)
    if not runs:
        raise ResultsError(f"{path}: no result rows")
    return runs


def select(runs: list[Run], *, tasks=None, designs=None, seeds=None) -> list[Run]:
    """The runs of the given tasks, designs and seeds (None: all of them)."""
    return [r for r in runs if (tasks is None or r.task in tasks) and (designs is None or r.design in designs)
            and (seeds is None or r.seed in seeds)]
