"""A7·4 评审与并行, the review half: self-review in the same session or a fresh reviewer child.

    python -m prefixlab record a7-4-review OUT

Scripted policy as in A7·2 (``data/a7/review/script.yml``): every request of the agent and of its
child goes to the course's llama-server, the assistant turns come from the script, the tools run for
real on a fresh copy of ``data/toy-repo`` with ``data/a7/repo-overlay``. One slot without host cache
(``--cache-ram 0``, as A7·2's ``one-slot``); each variant on a fresh server (its own epoch).

One session per variant, three user turns: the task (the agent adds ``to_kelvin`` to
``units/convert.py``; the change has a planted bug), the ``review_request``, the ``fix_request``.
The agent has miniagent's ``spawn_agent`` tool in both variants (the same tool definitions):

- ``self``: the agent answers the review request itself: one request on its own long prefix;
- ``fresh``: the agent hands the review to a fresh child (``spawn_agent``, mode ``fresh``) with the
  ``reviewer_brief``; the child reads the file once and answers the same review; the agent relays it.

Then the agent fixes the bug in both. The child is registered as a session of kind ``child`` with
``child_of`` (delegation.py).
"""
from __future__ import annotations

from miniagent.children import ChildLimits, add_children, child_entries, open_child
from miniagent.loop import Limits, run_task
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a7.experiments.delegation import (CHILD_ROUNDS, GROUP, DelegationRecorder,
                                                spawn_turn)
from chapters.a7.paths import REVIEW_DIR
from prefixlab.recording.format import write_manifest
from prefixlab.recording.policy import StampedPolicy

SERVER_ARGS = ["--cache-ram", "0"]  # one slot (the course default), no host cache
VARIANTS = ("self", "fresh")


class ReviewRecorder(DelegationRecorder):
    """A7·4: one change, reviewed by the agent itself or by a fresh reviewer child; one server each."""

    experiment = "A7-4"
    script_file = REVIEW_DIR / "script.yml"
    variants = VARIANTS
    server_args = tuple(SERVER_ARGS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.manifest["setup"] = "one-slot"

    def turns(self, variant: str) -> list[dict]:
        s = self.script
        if variant == "self":
            review = [{"answer": s["review"]}]
        else:
            review = [spawn_turn(s["reviewer_brief"], "fresh", s["delegate_say"]), {"answer": s["relay"]}]
        return s["change"] + review + s["fix"]

    def run_variant(self, variant: str) -> Session:
        s, sid = self.script, variant
        workspace, memory = self.fresh_copy(sid)
        session = Session.open(self.out / f"{sid}.jsonl")
        toolbox, order, child_orders = Toolbox(workspace, memory), [], {}

        def model_for(number: int, mode: str):
            child_orders[number] = []
            return StampedPolicy(self.model(), s["reviewer_reads"] + [{"answer": s["review"]}],
                                 f"call_{sid}_child{number}", self.clock, order=child_orders[number])

        agents = add_children(toolbox, session, model_for, log=self.log,
                              limits=ChildLimits(depth=1, limits=Limits(max_rounds=CHILD_ROUNDS)))
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)
        policy = StampedPolicy(self.model(), self.turns(variant), f"call_{sid}", self.clock, order=order)
        for task in (s["task"], s["review_request"], s["fix_request"]):
            run_task(task.strip(), model=policy, toolbox=agents.toolbox, session=session, steps=[design],
                     log=self.log)
        if policy.turns:
            raise RuntimeError(f"{sid}: {len(policy.turns)} scripted replies were not used")
        info = {"variant": variant}
        self._register({"id": sid, "file": session.path.name, "group": GROUP, "day": 1, "kind": "main", **info},
                       session, 0, order)
        for number, entry in enumerate(child_entries(session), start=1):
            if entry["status"] != "done":
                raise RuntimeError(f"{sid}: child {number} ended {entry['status']}")
            self._register({"id": f"{sid}-child{number}", "file": entry["path"], "group": GROUP, "day": 1,
                            "kind": "child", "child_of": {"session": sid, "entry": entry["id"],
                                                          "mode": entry["mode"]}, **info},
                           open_child(session, entry), 0, child_orders[number])
        self.manifest["order"].sort(key=lambda item: (item["epoch"], item["t"]))
        write_manifest(self.out, self.manifest)
        return session

    run = run_variant  # what the default record() runs for each variant, on a fresh server


RECORDER = ReviewRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


