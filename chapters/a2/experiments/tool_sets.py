"""Record A2·2's experiment: one task, the same steps, with one tool, four tools, or fifteen.

    python -m prefixlab record a2-2 data/recordings/a2-2-tool-sets-smollm2-llamacpp

A1's task on a fresh copy of the toy repository (``data/toy-repo``), one session per tool set of
``data/a2/tool-sets.yml`` (``bash``: mini-swe-agent's one tool; ``pi``: pi's four; ``fifteen``), each on a
freshly started server (a new epoch). The scripted steps are the same in each (``data/a2/tool-sets/script.yml``):
run the checks, read the file, fix it, run the checks again, answer; with bash only, reading and fixing are
commands too. Every tool the script calls is carried out by miniagent's own tool (the set's ``handler``);
the tools no step calls are only offered, which is all a tool block is.

Scripted policy as everywhere in the course: each request goes to the real server (one generated token),
the assistant turn appended to the history is the script's.
"""
from __future__ import annotations

from miniagent.loop import run_task
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox, Workspace

from chapters.a2.paths import TOOL_SETS_SCRIPT
from chapters.a2.tool_blocks import tool_set, tool_set_handlers
from prefixlab.paths import TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A2-2"


class SetToolbox:
    """Offers one tool set; a call runs the miniagent tool the set names for it (checked as miniagent does)."""

    def __init__(self, workspace: Workspace, set_name: str):
        self.inner = Toolbox(workspace, memory=None)
        self.definitions = tool_set(set_name)
        self.handlers = tool_set_handlers(set_name)  # offered name -> miniagent tool (None: offered only)

    def call(self, name: str, arguments) -> str:
        if name not in self.handlers:
            return f"error: unknown tool {name!r}; available: {', '.join(sorted(self.handlers))}"
        if self.handlers[name] is None:
            return f"error: {name} is offered but not available in this session"
        return self.inner.call(self.handlers[name], arguments)


class ToolSetRecorder(Recorder):
    """A2-2: bash, pi, fifteen; each on a fresh server."""

    experiment = EXPERIMENT
    script_file = TOOL_SETS_SCRIPT
    repository = Repository(TOY_REPO)
    variants = ("bash", "pi", "fifteen")
    variant_label = "session"

    def run(self, variant: str) -> None:
        workspace, _ = self.fresh_copy(variant)
        session = Session.open(self.out / f"{variant}.jsonl")
        turns = self.script["turns"][variant] + [{"answer": self.script["answer"]}]
        policy = ScriptedPolicy(self.model(), turns, f"call_{variant}", self.clock)
        run_task(self.script["task"], model=policy, toolbox=SetToolbox(workspace, variant), session=session,
                 steps=[FixedPrompt(self.script["system"])], max_rounds=len(turns))
        info = {"id": variant, "file": f"{variant}.jsonl", "group": "frozen", "day": 1, "kind": "main",
                "policy": "scripted", "tool_set": variant}
        self._register(info, session, 0, policy.sent_at)


RECORDER = ToolSetRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


