"""A guard against loops (opt-in, A2): the harness answers a repeated call, and stops a run that goes round.

A small model that does not know what to do next often makes the same call again and again until the
round limit. The guard sits at the edge, between the loop and the toolbox, and looks only at calls:

- a call identical to the one just before it (same tool, same arguments) is not run again; the
  harness answers it with a note that says so (the result is the one above);
- ``patience`` calls in a row that were all made before in this run (any order, so a cycle A, B, A, B
  counts too) mean no progress: the guard trips, and ``GuardedLimits`` stops the run before the next
  model call, with a ``stopped`` entry that says why, as every limit does (loop.py).

gemini-cli does the same kind of check on a key made of a call's name and arguments: a cycle of one
to five calls repeated five times is a loop; the first time it sends the model a note and goes on,
the second time it stops the turn (google-gemini/gemini-cli@5411f113cafae26161b4969b0237b8e1e024e2c2:
packages/core/src/services/loopDetectionService.ts:174-178, 313-348;
packages/core/src/core/client.ts:810-856, 1270-1298).

A call made again after a change (rerunning the checks after an edit) is a repeat by this rule too; a
new call in between (the edit) is progress and resets the count, and the rerun is not the one just before.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from .loop import Limits

REPEATED = ("the harness did not run this call: it is the same call as the one just before, and its result "
            "is above. Do something else, or give your final answer.")


def call_key(name: str, arguments) -> str:
    """The same for two calls of one tool with equal arguments, however the JSON was spaced."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return f"{name}:{arguments}"
    return f"{name}:{json.dumps(arguments, sort_keys=True)}"


class LoopGuard:
    """Wraps a toolbox: same ``definitions``, a ``call`` that answers repeats and counts progress."""

    def __init__(self, toolbox, patience: int = 4):
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 1:
            raise ValueError(f"patience must be a positive whole number, not {patience!r}")
        self.toolbox, self.patience = toolbox, patience
        self.definitions = toolbox.definitions
        self.seen: set[str] = set()
        self.last: str | None = None
        self.without_progress = 0
        self.answered = 0  # repeats the harness answered instead of running
        self.tripped: str | None = None

    def call(self, name: str, arguments) -> str:
        key = call_key(name, arguments)
        self.without_progress = self.without_progress + 1 if key in self.seen else 0
        if self.without_progress >= self.patience:
            self.tripped = f"no progress: {self.without_progress} calls in a row the run had made before"
        repeat, self.last = key == self.last, key
        self.seen.add(key)
        if repeat:
            self.answered += 1
            return REPEATED
        return self.toolbox.call(name, arguments)


@dataclass(frozen=True)
class GuardedLimits(Limits):
    """The usual limits, and one more: stop once the guard has tripped."""

    guard: LoopGuard | None = None

    def reason_to_stop(self, rounds: int, tokens: int, seconds: float) -> str | None:
        return super().reason_to_stop(rounds, tokens, seconds) or (self.guard.tripped if self.guard else None)
