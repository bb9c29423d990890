"""Record T14, the experiment of side lesson A6·R: the whole memory file, or only what matches?

    python -m prefixlab record a6-r data/recordings/t14-smollm2-llamacpp
    python -m prefixlab.record_t14 data/recordings/t14-smollm2-llamacpp     # the old name, still works

One session of four user requests (``data/a6/t14/script.yml``) on a fresh copy of the fixture
repository (``data/toy-repo``), with the 45 notes of ``data/a6/t14/notes.yml`` saved beforehand
through ``MemoryStore.add`` (so its limits and checks apply). Scripted policy as in T10/T11:
every request goes to the real server, the assistant turns come from the script, the tools run
for real. The same session three times, each on a fresh server (a new epoch), under one memory
strategy each; the session ids are the strategies (miniagent ``--mode``, the manifest's group):

- ``frozen``: the whole memory file in the system prompt, as it was at session start;
- ``select``: the ``top_k`` notes that match each request, in the system prompt (picked again
  at every request; learn-claude-code s09's shape);
- ``retrieve``: the same notes added to that request's user message only (Hermes's external
  memory provider's shape).

No note is written during the session, so the three strategies draw on the same notes.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from miniagent.injection import MemoryInjection
from miniagent.loop import run_task
from miniagent.memory import MemoryStore
from miniagent.modes import DESIGNS
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from chapters.a6.paths import T14_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "T14"
STRATEGIES = ("frozen", "select", "retrieve")  # session ids = memory modes, recorded in this order


def load_notes(path: Path = T14_DIR / "notes.yml") -> tuple[list[str], int]:
    """The notes' texts in order, and the store's character limit."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [note["text"].strip() for note in data["notes"]], data["memory_char_limit"]


def saved_memory(path: Path, notes: list[str], char_limit: int) -> MemoryStore:
    """A MEMORY.md at ``path`` holding ``notes``, each saved as the ``remember`` tool saves it."""
    store = MemoryStore(path, char_limit)
    for note in notes:
        store.add(note)  # NoteRefused (too long, a '§' line, store full) stops the recording
    return store


def injection_for(mode: str, agents_md: str, memory: MemoryStore, top_k: int) -> MemoryInjection:
    """miniagent's design ``mode``; the two that pick notes get the script's ``top_k``."""
    if mode == "frozen":
        return DESIGNS[mode](BASE_PROMPT, agents_md, memory)
    return DESIGNS[mode](BASE_PROMPT, agents_md, memory, k=top_k)


class T14Recorder(Recorder):
    """T14: one session of four requests with 45 saved notes, under three memory strategies."""

    experiment = EXPERIMENT
    script_file = T14_DIR / "script.yml"
    repository = Repository(TOY_REPO)
    variants = STRATEGIES
    variant_label = "strategy"

    def __init__(self, out: Path, connect, restart, provenance: dict, model_name: str, log=print):
        super().__init__(out, connect, restart, provenance, model_name, log)
        self.notes, self.char_limit = load_notes()

    def fresh_copy(self, name: str) -> tuple[Workspace, MemoryStore]:
        workspace, _ = super().fresh_copy(name)
        return workspace, saved_memory(self.work / name / "home" / "MEMORY.md", self.notes, self.char_limit)

    def run_strategy(self, mode: str) -> Session:
        workspace, memory = self.fresh_copy(mode)
        session = Session.open(self.out / f"{mode}.jsonl")
        turns = self.script["turns"]
        replies = [reply for turn in turns for reply in turn["replies"]]
        policy = ScriptedPolicy(self.model(), replies, "call_t14", self.clock)  # same ids in every strategy
        injection = injection_for(mode, read_agents_md(workspace.root), memory, self.script["top_k"])
        toolbox = Toolbox(workspace, memory)
        for turn in turns:
            run_task(turn["user"].strip(), model=policy, toolbox=toolbox, session=session, steps=[injection],
                     max_rounds=len(turn["replies"]))
        if policy.turns:
            raise RuntimeError(f"{mode}: {len(policy.turns)} scripted replies were not used; the script and "
                               "the loop disagree (a turn ended early)")
        info = {"id": mode, "file": f"{mode}.jsonl", "group": mode, "day": 1, "kind": "main",
                "requests": [turn["user"].strip() for turn in turns]}
        if mode != "frozen":
            info["top_k"] = self.script["top_k"]
        self._register(info, session, 0, policy.sent_at)
        return session

    run = run_strategy  # what the default record() runs for each variant, on a fresh server


RECORDER = T14Recorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


