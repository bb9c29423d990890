"""Record A4·3's experiment: the same session sent as an append-only message list or re-rendered.

    python -m prefixlab record a4-3 data/recordings/a4-3-rewrite-history-smollm2-llamacpp

Three shapes of the history, each on a fresh server (one slot, an empty cache), in this order:

- ``messages``: miniagent's own request, the conversation as a list of messages, only appended to;
- ``transcript``: the conversation re-rendered into one user message every round, the last six
  entries in full and older ones clipped (``miniagent/variants/transcript.py``);
- ``transcript-notes``: the same, with a block of working notes (the last tool results) before the
  transcript, as rasbt/mini-coding-agent puts its memory block.

Every shape runs the same session of ``data/a4/a4-3/script.yml`` (ten rounds) on a fresh copy of the
toy repository. Scripted policy: every request goes to the real server (one generated token); the
assistant turns come from the script; the tools run for real.
"""
from __future__ import annotations

from miniagent.loop import run_task
from miniagent.prompt import BASE_PROMPT, SystemPrompt, read_agents_md
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox
from miniagent.variants.transcript import RenderedTranscript

from chapters.a4.paths import A43_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A4-3"
SHAPES = ("messages", "transcript", "transcript-notes")
GROUP = "frozen"  # the memory block is read once per session (and stays empty)


class RewriteHistoryRecorder(Recorder):
    """A4-3: for each shape of the history, one scripted session on a fresh server."""

    experiment = EXPERIMENT
    script_file = A43_DIR / "script.yml"
    repository = Repository(TOY_REPO)
    variants = SHAPES
    variant_label = "shape"

    def run_shape(self, shape: str) -> None:
        workspace, memory = self.fresh_copy(shape)
        turns = self.script["turns"]
        session = Session.open(self.out / f"{shape}.jsonl")
        policy = ScriptedPolicy(self.model(), turns, f"call_{shape}", self.clock)
        model = policy if shape == "messages" else RenderedTranscript(policy, with_notes=shape == "transcript-notes")
        system = SystemPrompt(BASE_PROMPT, read_agents_md(workspace.root), memory.text()).text
        run_task(self.script["task"], model=model, toolbox=Toolbox(workspace, memory), session=session,
                 steps=[FixedPrompt(system)], max_rounds=len(turns))
        # group: the memory design (miniagent's frozen one, never changes here); shape: how the history is sent
        self._register({"id": shape, "file": f"{shape}.jsonl", "group": GROUP, "day": 1, "shape": shape, "kind": "main"},
                       session, 0, policy.sent_at)

    run = run_shape  # what the default record() runs for each variant, on a fresh server


RECORDER = RewriteHistoryRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


