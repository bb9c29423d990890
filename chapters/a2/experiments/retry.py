"""Record A2·1's experiment: what a malformed call costs when the agent retries it once.

    python -m prefixlab record a2-1 data/recordings/a2-1-retry-smollm2-llamacpp

A1's task on a fresh copy of the toy repository (``data/toy-repo``), three sessions, each on a freshly
started server (a new epoch: an empty cache). The script is ``data/a2/retry/script.yml``; the agent is
miniagent's loop (``miniagent.loop.run_task``) with the four tools A1 offers.

- ``clean``: every call well formed (A1's loop).
- ``text-retry``: the first reply tries to call a tool but writes the call as text the server cannot
  parse (a brace missing), so it arrives without ``tool_calls`` and the loop ends on it as on an answer.
  The agent sees that the text tried to call a tool (``tried_to_call``) and retries once: the same
  session goes on with a correction as a new user message (mini-swe-agent sends its format errors back
  the same way). At most ``MAX_RETRIES`` such retries; then the text stands as the answer. The retry is
  miniagent's own opt-in (``miniagent/call_retry.py``); the correction is the script's.
- ``bad-args``: a call the server parsed but with an argument the tool does not have; miniagent's
  toolbox returns an error as the tool result (``Toolbox.call``), and the model calls again.

Scripted policy as everywhere in the course: each request goes to the real server (one generated token),
the assistant turn appended to the history is the script's.
"""
from __future__ import annotations

from miniagent.call_retry import run_with_retry, tried_to_call
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox, Workspace

from chapters.a2.paths import RETRY_SCRIPT
from prefixlab.paths import TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A2-1"
FOUR = ("list_files", "read_file", "edit_file", "run_command")   # the tools A1's agent offers
MAX_RETRIES = 1  # the recording's setting, passed to miniagent's run_with_retry
__all__ = ["MAX_RETRIES", "RetryRecorder", "four_tools", "run_with_retry", "tried_to_call"]


def four_tools(workspace: Workspace) -> Toolbox:
    """miniagent's toolbox offering only ``FOUR`` (what A1's agent offers), dispatched as miniagent does."""
    toolbox = Toolbox(workspace, memory=None)
    toolbox.handlers = {name: toolbox.handlers[name] for name in FOUR}
    toolbox.definitions = [handler.definition for handler in toolbox.handlers.values()]
    return toolbox


class RetryRecorder(Recorder):
    """A2-1: clean, text-retry, bad-args; each on a fresh server."""

    experiment = EXPERIMENT
    script_file = RETRY_SCRIPT
    repository = Repository(TOY_REPO)
    variants = ("clean", "text-retry", "bad-args")
    variant_label = "session"

    def run(self, variant: str) -> None:
        workspace, _ = self.fresh_copy(variant)
        session = Session.open(self.out / f"{variant}.jsonl")
        turns = self.script[variant]
        policy = ScriptedPolicy(self.model(), turns, f"call_{variant}", self.clock)
        answer, retries = run_with_retry(self.script["task"], self.script["correction"], max_retries=MAX_RETRIES,
                                         model=policy,
                                         toolbox=four_tools(workspace), session=session,
                                         steps=[FixedPrompt(self.script["system"])], max_rounds=len(turns))
        self.log(f"  {variant}: {retries} retries; answer {answer[:60]!r}")
        info = {"id": variant, "file": f"{variant}.jsonl", "group": "frozen", "day": 1, "kind": "main",
                "policy": "scripted", "retries": retries}
        self._register(info, session, 0, policy.sent_at)


RECORDER = RetryRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


