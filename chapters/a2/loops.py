"""Count A2·5's loop runs offline (``chapters/a2/experiments/loop_runs.py``): how each run ended, and why.

Per run, from the recorded session: how it ended (``answer``: the model gave a final answer;
``round_limit``: the round limit stopped it; ``no_progress``: the loop guard stopped it), whether the answer
names the right number of passing checks (the toy repository's own ``tools/check.py``, run here: a lenient
test, the number must appear in the answer), its calls (tool and arguments), how many were the same as the
call just before, how many the guard answered instead of running, and the tokens the run used.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from miniagent.loop_guard import REPEATED, call_key

from prefixlab.paths import TOY_REPO
from prefixlab.recording.format import load

VARIANTS = ("constrained", "guarded")
ENDINGS = ("answer", "round_limit", "no_progress")


@lru_cache(maxsize=1)
def checks_passing() -> int:
    """How many of the toy repository's checks pass, as its check script says today."""
    out = subprocess.run([sys.executable, "tools/check.py"], cwd=TOY_REPO, capture_output=True, text=True).stdout
    found = re.search(r"(\d+) of \d+ checks pass", out)
    if not found:
        raise RuntimeError(f"tools/check.py in {TOY_REPO} did not say how many checks pass: {out[-200:]!r}")
    return int(found.group(1))


@dataclass(frozen=True)
class LoopRun:
    variant: str
    seed: int
    requests: int
    ended: str
    answer: str
    right: bool
    calls: tuple[str, ...]
    repeats: int            # calls identical to the call just before
    answered_by_guard: int  # calls the guard answered instead of running
    tokens: int             # prompt + completion, summed over the run's requests


def run_of(recording, info: dict) -> LoopRun:
    entries = [json.loads(line) for line in (recording.path / info["file"]).read_text(encoding="utf-8").splitlines()]
    calls, results, answer, ended = [], [], "", "answer"
    for e in entries:
        if e["type"] == "stopped":
            ended = "no_progress" if e["reason"].startswith("no progress") else "round_limit"
        elif e["type"] == "message" and e["message"]["role"] == "assistant":
            made = e["message"].get("tool_calls") or []
            calls += [call_key(c["function"]["name"], c["function"]["arguments"]) for c in made]
            if not made:
                answer = e["message"].get("content") or ""
        elif e["type"] == "message" and e["message"]["role"] == "tool":
            results.append(e["message"]["content"])
    recorded = recording.session_calls(info["id"])
    tokens = sum(c.response["usage"]["prompt_tokens"] + c.response["usage"]["completion_tokens"] for c in recorded)
    right = ended == "answer" and re.search(rf"(?<!\d){checks_passing()}(?!\d)", answer) is not None
    return LoopRun(info["variant"], info["seed"], len(recorded), ended, answer, right, tuple(calls),
                   sum(a == b for a, b in zip(calls, calls[1:])), results.count(REPEATED), tokens)


def runs(path: Path) -> list[LoopRun]:
    recording = load(path)
    return [run_of(recording, info) for info in recording.manifest["sessions"]]


def summary(path: Path) -> dict[str, dict]:
    """Per variant: runs, how they ended, right answers, requests, repeats, guard answers, tokens."""
    table = {}
    for variant in VARIANTS:
        mine = [r for r in runs(path) if r.variant == variant]
        table[variant] = {"runs": len(mine), **{e: sum(r.ended == e for r in mine) for e in ENDINGS},
                          "answers": sum(r.ended == "answer" for r in mine), "right": sum(r.right for r in mine),
                          "requests": sum(r.requests for r in mine), "repeats": sum(r.repeats for r in mine),
                          "answered_by_guard": sum(r.answered_by_guard for r in mine),
                          "tokens": sum(r.tokens for r in mine)}
    return table
