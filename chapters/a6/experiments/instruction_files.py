"""Record T11, the experiment of lesson A6·1: where a human rule lives.

    python -m prefixlab record a6-1 data/recordings/t11-smollm2-llamacpp
    python -m prefixlab.record_t11 data/recordings/t11-smollm2-llamacpp     # the old name, still works

The same human rule (``rule`` in ``data/a6/t11/script.yml``) is given to miniagent in different
places; everything else is T10's day 1 and day 2 with the scripted policy (every request goes to
the real server, the assistant turns come from the script, the tools run on a fresh copy of
the toy repository). Day 1 is compacted once (miniagent's ``Compactor``; the served model writes
the summary, the script does not). Variants, each on a fresh server (a new epoch):

- ``message``: the rule is a paragraph of day 1's first user message; then day 2, a new session;
- ``agents``: the rule is a line of AGENTS.md from the start; then day 2;
- ``edit-frozen``: AGENTS.md starts without the rule and a person adds the line while round
  ``edit_after_round`` runs; miniagent reads AGENTS.md at session start and after a compaction;
- ``edit-reload``: the same edit, with AGENTS.md re-read before every call (what the prefix
  cache pays for an instruction file that is always up to date).

All sessions run with memory mode ``frozen`` (group ``frozen``), so the only moving part of the
system prompt is AGENTS.md. The summary request of a compaction is a real request too: it is kept
in the session's ``compaction`` entry (``request`` / ``response``) and has its place in the
manifest's global order like every ``model_call``.
"""
from __future__ import annotations

from pathlib import Path

from miniagent.agents_md import read_agents_md
from miniagent.compaction import Compactor, model_summariser
from miniagent.injection import Frozen
from miniagent.loop import run_task
from miniagent.memory import MemoryStore
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from chapters.a6.paths import T11_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.policy import StampedPolicy, StampedModel
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "T11"
GROUP = "frozen"  # the memory design of every T11 session (miniagent --mode)
VARIANTS = ("message", "agents", "edit-frozen", "edit-reload")
WITH_DAY2 = ("message", "agents")


def rule_line(rule: str) -> str:
    """The rule as a line of AGENTS.md."""
    return f"- {rule}"


def add_rule_to_agents_md(repo: Path, rule: str) -> None:
    """Append the rule as the last list item of the repository's AGENTS.md (what a person would type)."""
    path = repo / "AGENTS.md"
    text = path.read_text(encoding="utf-8").rstrip("\n")
    path.write_text(f"{text}\n{rule_line(rule)}\n", encoding="utf-8")


def first_message(task: str, rule: str | None) -> str:
    """Day 1's first user message: the task, and in variant ``message`` the rule as its last paragraph."""
    return task if rule is None else f"{task}\n\n{rule}"


class ReloadAgentsMd(Frozen):
    """Frozen memory, but AGENTS.md re-read from disk before every call (variant ``edit-reload``).

    Not one of miniagent's designs: it is what "the instruction file is always current" costs.
    """

    def current(self):
        self.agents_md = read_agents_md(self.workspace).strip()
        return super().current()


class T11Recorder(Recorder):
    """T11: the rule in four places, day 1 compacted once, day 2 where the rule may survive."""

    experiment = EXPERIMENT
    script_file = T11_DIR / "script.yml"
    tasks_file = T11_DIR / "tasks.yml"
    repository = Repository(TOY_REPO)
    variants = VARIANTS

    def __init__(self, out: Path, connect, restart, provenance: dict, model_name: str, log=print):
        super().__init__(out, connect, restart, provenance, model_name, log)
        self.manifest["rule"] = self.script["rule"]

    def fresh_copy(self, name: str, rule_in_agents_md: bool = False) -> tuple[Workspace, MemoryStore]:
        workspace, memory = super().fresh_copy(name)
        if rule_in_agents_md:
            add_rule_to_agents_md(workspace.root, self.script["rule"])
        return workspace, memory

    def run_session(self, variant: str, day: int, workspace: Workspace, memory: MemoryStore) -> Session:
        sid = f"{variant}-day{day}"
        session = Session.open(self.out / f"{sid}.jsonl")
        order: list[float] = []
        turns = self.script[f"day{day}"]
        rule = self.script["rule"]
        after_call, info = {}, {}
        if variant.startswith("edit-") and day == 1:
            edit_round = self.script["edit_after_round"]
            after_call[edit_round] = lambda: add_rule_to_agents_md(workspace.root, rule)
            info["agents_md_edit"] = {"path": "AGENTS.md", "during_round": edit_round, "added": rule_line(rule)}
        policy = StampedPolicy(self.model(), turns, f"call_{sid}", self.clock, order=order, after_call=after_call)
        if variant == "edit-reload":
            injection = ReloadAgentsMd(BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
        else:
            injection = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
        steps = [injection]
        if day == 1:
            summary_model = StampedModel(self.model(), order, self.clock,
                                         max_tokens=self.script["summary_max_tokens"], temperature=0)
            steps.insert(0, Compactor(self.script["compact_at"], model_summariser(summary_model)))  # compaction first
            info["compact_at"] = self.script["compact_at"]
        task = self.tasks[f"day{day}"].strip()
        if variant == "message" and day == 1:
            task = first_message(task, rule)
        run_task(task, model=policy, toolbox=Toolbox(workspace, memory), session=session, steps=steps,
                 max_rounds=len(turns))
        rule_in = {"message": "message", "agents": "agents_md"}.get(variant, "agents_md_edit")
        self._register({"id": sid, "file": f"{sid}.jsonl", "group": GROUP, "day": day, "kind": "main",
                        "variant": variant, "rule_in": rule_in if day == 1 or variant != "message" else "nowhere",
                        "agents_md_read": "every_call" if variant == "edit-reload" else "session_start_and_compaction",
                        **info}, session, 0, order)
        return session

    def record(self, counterfactuals: bool = False, live: bool = False) -> dict:
        self.log(f"recording {EXPERIMENT} into {self.out}")
        for variant in self.on_fresh_servers():
            workspace, memory = self.fresh_copy(variant, rule_in_agents_md=variant == "agents")
            self.run_session(variant, 1, workspace, memory)
            if variant in WITH_DAY2:
                self.run_session(variant, 2, workspace, memory)
        return self.finish()


RECORDER = T11Recorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


