"""Record A5·1: what llama-server does when the prompt outgrows its context.

    python -m prefixlab record a5-1 data/recordings/a5-1-overflow-smollm2-llamacpp

The course's llama-server with a small context (``SERVER_ARGS``: ``-c 2048 -np 1``) and one session
(``data/a5/overflow/script.yml``) on a fresh copy of the toy repository with a week of readings
(``data/toy-repo`` + ``data/a5/repo-overlay``). Scripted policy as in A6: every request goes to the
real server, the assistant turns come from the script, the tools run for real.

- ``overflow`` reads the readings one day at a time; each result stays in the history, so each
  request is longer than the last, until the server refuses one (HTTP 400, "exceeds the available
  context size"). The refused request is recorded with the server's error (a ``model_call`` with
  ``error``, prefixlab.recording.format) and the session stops there.
- ``retry`` (a fork of ``overflow`` at the last tool result, in the same file) takes the session up
  again: that result is cut to its first line (``miniagent.masking.mask``) and a user message asks
  for the answer. Its request starts with everything the last served request had, so its cached
  count shows what the slot holds after the refusal: the last served prompt, not the refused one.
"""
from __future__ import annotations

from miniagent.loop import run_task
from miniagent.masking import mask
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a5.paths import OVERFLOW_DIR, REPO_OVERLAY
from prefixlab.paths import TOY_REPO
from prefixlab.recording.chat_client import RequestRefused
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A5-1"
SERVER_ARGS = ["-c", "2048", "-np", "1"]  # a context small enough for a few files to fill, one slot
GROUP = "frozen"  # miniagent's design as it ships (its memory is empty here)
CONTEXT_EXCEEDED = "exceed_context_size_error"  # the error type of llama-server's refusal


class OverflowRecorder(Recorder):
    """A5·1: a session whose history outgrows the server's context, then a fork of it that fits."""

    experiment = EXPERIMENT
    script_file = OVERFLOW_DIR / "script.yml"
    repository = Repository(TOY_REPO, (REPO_OVERLAY,))
    server_args = tuple(SERVER_ARGS)

    def run_overflow(self, session: Session, toolbox: Toolbox, design) -> dict:
        """Read until the server refuses a request; return the refused entry."""
        policy = ScriptedPolicy(self.model(), self.script["replies"], "call_a5", self.clock)
        try:
            run_task(self.script["task"].strip(), model=policy, toolbox=toolbox, session=session, steps=[design],
                     max_rounds=len(self.script["replies"]))
        except RequestRefused as refused:
            if refused.error["body"]["error"].get("type") != CONTEXT_EXCEEDED:
                raise  # another refusal is not what this experiment records: the recording stops incomplete
            entry = self.record_refusal(session, refused, round_no=len(policy.sent_at))
            self.log(f"  round {entry['round']}: refused: {refused}")
        else:
            raise RuntimeError("the history never outgrew the server's context: no request was refused "
                               "(does the script read enough files for this context size?)")
        self._register({"id": "overflow", "file": "overflow.jsonl", "group": GROUP, "day": 1, "kind": "main"},
                       session, 0, policy.sent_at)
        return entry

    def run_retry(self, session: Session, toolbox: Toolbox, design, refused: dict) -> None:
        """From the last tool result before the refusal: cut it to its first line, ask for the answer."""
        last_result = refused["parentId"]
        first_new = len(session.entries)
        session.fork(last_result)
        mask(session, last_result, session.by_id[last_result]["message"])
        retry = self.script["retry"]
        policy = ScriptedPolicy(self.model(), retry["replies"], "call_a5_retry", self.clock)
        run_task(retry["user"].strip(), model=policy, toolbox=toolbox, session=session, steps=[design],
                 max_rounds=len(retry["replies"]))
        if policy.turns:
            raise RuntimeError(f"retry: {len(policy.turns)} scripted replies were not used")
        self._register({"id": "retry", "file": "overflow.jsonl", "group": GROUP, "day": 1, "kind": "fork",
                        "forked_from": {"session": "overflow", "entry": last_result,
                                        "after_round": refused["round"] - 1}},
                       session, first_new, policy.sent_at)

    def record(self) -> dict:
        self.log(f"recording {EXPERIMENT} into {self.out}")
        workspace, memory = self.fresh_copy("overflow")
        session = Session.open(self.out / "overflow.jsonl")
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)
        toolbox = Toolbox(workspace, memory)
        refused = self.run_overflow(session, toolbox, design)
        self.run_retry(session, toolbox, design, refused)
        return self.finish()


RECORDER = OverflowRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


