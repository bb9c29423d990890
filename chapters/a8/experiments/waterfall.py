"""Record A8·3's waterfall: the same task under five designs, from all naive to all fixed.

    python -m prefixlab record a8-3-waterfall OUT

The task, the scripted assistant turns, the notes and the compaction settings are A8·3's
(``data/a8/whole-task/script.yml``, recorded by ``whole_task.py``, whose recorder this one extends).
The designs are ``data/a8/waterfall/designs.yml``: ``all-naive`` takes each chapter's naive choice
(A4·2: the clock and the file list at the top of the system prompt; A5·1: compact every N messages;
A5·4: a summary request without the agent's tools; A6·2: memory re-read into the system prompt before
every call; A7·2: a fresh child), and each next design swaps one chapter's choice for its fix
(``plus-a4`` ... ``plus-a7``). Each design is one session (its child a session of kind ``child``) on a
fresh server (``-c 4096 -np 1``, as A8·3).

The environment block's clock is the recorder's: ``clock.start`` plus ``clock.per_request_s`` for every
request the task sent before (summary calls and the child's included), so the recording replays byte for
byte. The manifest keeps the designs and the clock.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Callable

import yaml

from miniagent.loop import Limits

from chapters.a8.experiments.whole_task import SERVER_ARGS, Design, WholeTaskRecorder
from chapters.a8.paths import WATERFALL_DIR
from prefixlab.recording.format import write_manifest

EXPERIMENT = "A8-3-waterfall"
NAME = "a8-3-waterfall-smollm2-llamacpp"
DESIGNS_FILE = WATERFALL_DIR / "designs.yml"
CHOICES = ("environment", "trigger", "summary_tools", "memory", "child")  # one per chapter's fix, in order


def load_designs(path=DESIGNS_FILE) -> dict:
    """The designs file, checked: every design names each choice, and each design after the first
    changes what its ``fix`` names and nothing else."""
    plan = yaml.safe_load(path.read_text(encoding="utf-8"))
    designs = plan["designs"]
    for d in designs:
        missing = [c for c in CHOICES if c not in d]
        if missing:
            raise ValueError(f"{path}: design {d.get('id')!r} does not say {', '.join(missing)}")
    for before, after in zip(designs, designs[1:]):
        changed = {c for c in CHOICES if before[c] != after[c]}
        wanted = {"a4": {"environment"}, "a5": {"trigger", "summary_tools"}, "a6": {"memory"},
                  "a7": {"child"}}.get(after["fix"])
        if wanted is None or not changed or not changed <= wanted:
            raise ValueError(f"{path}: design {after['id']!r} (fix {after['fix']!r}) changes "
                             f"{sorted(changed) or 'nothing'} of {before['id']!r}")
    return plan


def design_of(entry: dict, max_messages: int) -> Design:
    return Design(environment=entry["environment"], trigger=entry["trigger"], summary_tools=entry["summary_tools"],
                  memory=entry["memory"], child=entry["child"],
                  max_messages=max_messages if entry["trigger"] == "every-n" else None)


class WaterfallRecorder(WholeTaskRecorder):
    """A8·3's task once per design, all naive first, each on a fresh server."""

    experiment = EXPERIMENT
    server_args = tuple(SERVER_ARGS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.plan = load_designs()
        self.variants = tuple(d["id"] for d in self.plan["designs"])

    def now(self, order: list[float], child_orders: dict[int, list[float]]) -> Callable[[], datetime]:
        start = datetime.fromisoformat(self.plan["clock"]["start"])
        step = timedelta(seconds=self.plan["clock"]["per_request_s"])
        return lambda: start + step * (len(order) + sum(len(o) for o in child_orders.values()))

    def record(self) -> dict:
        s = self.script
        self.manifest["compaction"] = {"window": s["window"], "reserve": s["reserve"], "keep_rounds": s["keep_rounds"],
                                       "summary_max_tokens": s["summary_max_tokens"],
                                       "max_messages": self.plan["max_messages"]}
        self.manifest["clock"] = self.plan["clock"]
        self.manifest["designs"] = self.plan["designs"]
        write_manifest(self.out, self.manifest)
        by_id = {d["id"]: d for d in self.plan["designs"]}
        for variant in self.on_fresh_servers():
            entry = by_id[variant]
            self.run(variant, Limits(max_rounds=len(s["parent"])), design_of(entry, self.plan["max_messages"]),
                     info={"fix": entry["fix"]})
        return self.finish()


RECORDER = WaterfallRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


if __name__ == "__main__":
    import sys

    sys.exit(main(prog="python -m chapters.a8.experiments.waterfall"))
