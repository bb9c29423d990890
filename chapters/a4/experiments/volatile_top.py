"""Record A4·2's experiment: a block that changes on its own, at the top or the end of the system prompt.

    python -m prefixlab record a4-2 data/recordings/a4-2-volatile-top-smollm2-llamacpp

Three shapes of the environment block (``miniagent/variants/volatile_line.py``), each on a fresh
server (one slot, an empty cache), in this order:

- ``clock-top``: the time to the minute and the file listing, before the base prompt;
- ``clock-end``: the same block after the memory block, the last thing in the system prompt;
- ``date-only``: only the date, last (Hermes Agent's choice).

Every shape runs the same two sessions of ``data/a4/a4-2/script.yml`` one after the other: day 1
(9 rounds) on a fresh copy of the toy repository with A4·1's longer AGENTS.md, then day 2
(8 rounds) on the same copy. Scripted policy: every request goes to the real server (one
generated token); the assistant turns come from the script; the tools run for real.

The clock is the script's: turn ``at`` on the day's ``date`` (UTC) is the time the block shows
and the time the request is recorded at (``t``, seconds since day 1, 09:00). So the two days are
a real night apart on the recording's clock, and the manifest says ``between_days_s: 0``: the
cloud rules take the times as recorded and add no second night. The llama.cpp rule ignores time.
"""
from __future__ import annotations

from datetime import date, datetime, time, timezone

from miniagent.loop import run_task
from miniagent.prompt import BASE_PROMPT, SystemPrompt, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox
from miniagent.variants.volatile_line import SHAPES, VolatileLine

from chapters.a4.paths import A41_OVERLAY, A42_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A4-2"
GROUP = "frozen"  # the memory block is read once per session (and stays empty)
DAYS = ("day1", "day2")


def instant(day: date, at: str) -> datetime:
    """``at`` ("HH:MM:SS") on ``day``, in UTC."""
    return datetime.combine(day, time.fromisoformat(at), tzinfo=timezone.utc)


class ScriptClock:
    """The recorder's clock: the block reads ``now()`` once per round, which moves to that round's
    ``at``; the policy stamps the request with ``seconds()`` since the origin (day 1, 09:00)."""

    def __init__(self, origin: datetime):
        self.origin, self.current, self.pending = origin, origin, []

    def start_day(self, day: date, turns: list[dict]) -> None:
        self.pending = [instant(day, turn["at"]) for turn in turns]

    def now(self) -> datetime:
        if not self.pending:
            raise RuntimeError("the script gives no time for this round")
        self.current = self.pending.pop(0)
        return self.current

    def seconds(self) -> float:
        return (self.current - self.origin).total_seconds()


class VolatileTopRecorder(Recorder):
    """A4-2: for each shape, day 1 then day 2 on a fresh server."""

    experiment = EXPERIMENT
    script_file = A42_DIR / "script.yml"
    repository = Repository(TOY_REPO, (A41_OVERLAY,))
    variants = SHAPES

    def run_day(self, shape: str, day: str, workspace, memory, clock: ScriptClock) -> None:
        sid = f"{shape}-{day}"
        plan = self.script[day]
        clock.start_day(plan["date"], plan["turns"])
        session = Session.open(self.out / f"{sid}.jsonl")
        policy = ScriptedPolicy(self.model(), plan["turns"], f"call_{sid}", clock.seconds)
        base = SystemPrompt(BASE_PROMPT, read_agents_md(workspace.root), memory.text()).text
        step = VolatileLine(shape, base, workspace, clock.now)
        run_task(plan["task"], model=policy, toolbox=Toolbox(workspace, memory), session=session,
                 steps=[step], max_rounds=len(plan["turns"]))
        # group: the memory design (never changes here); shape: where the environment block goes
        self._register({"id": sid, "file": f"{sid}.jsonl", "group": GROUP, "shape": shape, "day": int(day[-1]),
                        "kind": "main"}, session, 0, policy.sent_at)

    def record(self, days: tuple[str, ...] = DAYS) -> dict:
        self.log(f"recording {EXPERIMENT} into {self.out}")
        self.manifest["between_days_s"] = 0  # the script's clock already holds the night
        first = self.script[DAYS[0]]
        origin = instant(first["date"], "09:00:00")
        for shape in self.on_fresh_servers(label="shape"):
            workspace, memory = self.fresh_copy(shape)
            clock = ScriptClock(origin)
            for day in days:
                self.run_day(shape, day, workspace, memory, clock)
        return self.finish()


RECORDER = VolatileTopRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


