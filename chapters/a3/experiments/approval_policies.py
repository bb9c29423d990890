"""Record A3·2: one task under five approval policies, each on a fresh server.

    python -m prefixlab record a3-2 data/recordings/a3-2-approval-smollm2-llamacpp

The task (``data/a3/a3-2/script.yml``) runs the toy repository's checks, reads
``units/convert.py``, edits it and runs the checks again. The scripted assistant turns are the same
in every session; the sessions differ in the approval policy (``miniagent.approval.Approval``), its
allow-list and the scripted human's answers:

- ``in-chat`` (the naive design, no approval in the harness): the user asks the model to ask first;
  the model asks in the conversation before each call that changes something, and each "yes" is a
  new user message -- and a new request (``in_chat`` in the script: its own turns, with the questions);
- ``auto``: every call runs, nobody is asked;
- ``ask``: every call that changes something is put to the human, who says yes each time;
- ``allow-list``: ``ask``, with the check command on the allow-list: only the edit is put to the human;
- ``ask-deny``: the same allow-list, and the human says no to the edit: it does not run, the model
  reads why, the checks still fail;
- ``never``: nothing that changes something runs and nobody is asked.

Every session runs on a freshly started server (one slot, the course's flags), so its requests
read only what that session itself sent. The manifest's session entries record the policy, the
allow-list and every question put to the human with its answer (``asked``).
"""
from __future__ import annotations

from pathlib import Path

from miniagent.approval import Approval, scripted_human
from miniagent.loop import run_task
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a3.paths import A32_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A3-2"
GROUP = "frozen"  # miniagent's design as it ships (its memory is empty here)


class ApprovalRecorder(Recorder):
    """A3·2: the same scripted task under each approval policy of the script, one fresh server each."""

    experiment = EXPERIMENT
    script_file = A32_DIR / "script.yml"
    repository = Repository(TOY_REPO)

    def __init__(self, out: Path, connect, restart, provenance: dict, model_name: str, log=print):
        super().__init__(out, connect, restart, provenance, model_name, log)
        self.variants = tuple(s["id"] for s in self.script["sessions"])

    def run_session(self, spec: dict) -> None:
        if spec.get("in_chat"):
            return self.run_in_chat(spec)
        sid = spec["id"]
        workspace, memory = self.fresh_copy(sid)
        session = Session.open(self.out / f"{sid}.jsonl")
        human = scripted_human(spec.get("human", [])) if spec["policy"] == "ask" else None
        approval = Approval(spec["policy"], tuple(spec.get("allow", ())), human)
        turns = [dict(t) for t in self.script["replies"]]
        turns[-1]["answer"] = spec["answer"]
        policy = ScriptedPolicy(self.model(), turns, f"call_{sid.replace('-', '_')}", self.clock)
        run_task(self.script["task"].strip(), model=policy, toolbox=Toolbox(workspace, memory, approval=approval),
                 session=session, steps=[for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)],
                 max_rounds=len(turns))
        if policy.turns:
            raise RuntimeError(f"{sid}: {len(policy.turns)} scripted replies were not used (the task ended early)")
        unused = len(spec.get("human", [])) - len(approval.asked)
        if unused:
            raise RuntimeError(f"{sid}: {unused} scripted answers of the human were not used")
        self._register({"id": sid, "file": f"{sid}.jsonl", "group": GROUP, "day": 1, "kind": "main",
                        "policy": spec["policy"], "allow": list(approval.allow),
                        "asked": [{"tool": name, "answer": answer} for name, _, answer in approval.asked]},
                       session, 0, policy.sent_at)

    def run_in_chat(self, spec: dict) -> None:
        """The naive design: the model asks in the conversation; every answer is a new user message."""
        sid, chat = spec["id"], self.script["in_chat"]
        workspace, memory = self.fresh_copy(sid)
        session = Session.open(self.out / f"{sid}.jsonl")
        policy = ScriptedPolicy(self.model(), chat["replies"], f"call_{sid.replace('-', '_')}", self.clock)
        toolbox = Toolbox(workspace, memory, approval=Approval(spec["policy"]))
        steps = [for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)]
        messages = [f"{self.script['task'].strip()} {chat['task_suffix']}", *chat["user"]]
        for text in messages:  # the task, then each answer to a question the model asked
            run_task(text, model=policy, toolbox=toolbox, session=session, steps=steps,
                     max_rounds=len(chat["replies"]))
        if policy.turns:
            raise RuntimeError(f"{sid}: {len(policy.turns)} scripted replies were not used (the task ended early)")
        self._register({"id": sid, "file": f"{sid}.jsonl", "group": GROUP, "day": 1, "kind": "main",
                        "policy": spec["policy"], "allow": [], "asked": [],
                        "asked_in_chat": len(chat["user"])}, session, 0, policy.sent_at)

    def record(self) -> dict:
        self.log(f"recording {EXPERIMENT} into {self.out}")
        specs = {s["id"]: s for s in self.script["sessions"]}
        for sid in self.on_fresh_servers(label="policy"):
            self.run_session(specs[sid])
        return self.finish()


RECORDER = ApprovalRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


