"""Record A8·3's experiment: one complete task with skills, memory, a compaction and a child agent.

    python -m prefixlab record a8-3 OUT

Scripted policy (``data/a8/whole-task/script.yml``): every request of the agent and of its child goes to
the course's llama-server (``-c 4096 -np 1``), the assistant turns come from the script, the tools run for
real on a fresh copy of ``data/toy-repo``. The agent is miniagent as the chapters built it: the skills
index of ``data/a6/skills/ours`` in the system prompt (``read_skill``), memory mode ``frozen`` with the
script's notes in MEMORY.md, miniagent's Compactor (window - reserve, counted exactly with the server's
template and tokenizer; the served model writes each summary), and the ``spawn_agent`` tool (a fresh
child with its own session file, a session of kind ``child`` in the manifest).

Variants, each on a fresh server: ``whole`` (the task to its end) and ``budget`` (the same task with a
token budget, ``Limits(max_tokens=...)``, that stops it before the request that would go over).

``Design`` names the choices the chapters made about this agent; ``AS_SHIPPED`` is the one above.
``waterfall.py`` records the same task under other designs with this recorder's ``run``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from miniagent.children import ChildLimits, add_children, child_entries, open_child
from miniagent.compaction import Compactor, model_summariser, threshold
from miniagent.loop import Limits, run_task
from miniagent.modes import DESIGNS, for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.skills import SkillSet
from miniagent.tools import Toolbox
from miniagent.variants.volatile_line import SHAPES, VolatileLine

from chapters.a8.paths import SKILLS, WHOLE_TASK_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.format import write_manifest
from prefixlab.cache.tokenizer import exact_counter
from prefixlab.recording.policy import StampedPolicy, StampedModel
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A8-3"
GROUP = "frozen"
NAME = "a8-3-whole-task-smollm2-llamacpp"
SERVER_ARGS = ["-c", "4096", "-np", "1"]
CHILD_ROUNDS = 10


@dataclass(frozen=True)
class Design:
    """What the agent of this task is made of, one choice per chapter (data/a8/waterfall/designs.yml).

    ``environment``: A4·2's environment block in the system prompt (None: none; "clock-top", "date-only");
    ``trigger``: when to compact (A5·1: "reserve": window - reserve, counted exactly; "every-n": more than
    ``max_messages`` messages on the path); ``summary_tools``: the summary request offers the agent's tools
    (A5·4); ``memory``: the memory design (A6·2, miniagent/modes.py); ``child``: how the child starts
    (A7·2: "fresh" or "fork"; None: as the script's spawn_agent call says).
    """

    environment: str | None = None
    trigger: str = "reserve"
    summary_tools: bool = False
    memory: str = GROUP
    child: str | None = None
    max_messages: int | None = None

    def __post_init__(self):
        if self.environment is not None and self.environment not in SHAPES:
            raise ValueError(f"unknown environment block {self.environment!r}; choose one of {', '.join(SHAPES)}")
        if self.trigger not in ("reserve", "every-n"):
            raise ValueError(f"unknown trigger {self.trigger!r}; choose reserve or every-n")
        if self.trigger == "every-n" and not self.max_messages:
            raise ValueError("the every-n trigger needs max_messages")
        if self.memory not in DESIGNS:
            raise ValueError(f"unknown memory mode {self.memory!r}; choose one of {', '.join(DESIGNS)}")
        if self.child not in (None, "fresh", "fork"):
            raise ValueError(f"unknown child mode {self.child!r}; choose fresh or fork")


AS_SHIPPED = Design()  # A8·3's agent: no environment block, window - reserve, no tools in the summary, frozen


class WithEnvironment:
    """A memory design whose system prompt also carries A4·2's environment block: the design's text is
    the ``base`` that miniagent's ``VolatileLine`` puts the block before (clock-top) or after."""

    line: VolatileLine

    def __call__(self) -> str:
        self.line.base = super().__call__()
        return self.line.text()


def memory_design(design: Design, agents_md: str, memory, workspace, skills, now: Callable[[], datetime]):
    """The step that builds the system prompt: ``for_mode``'s design, with the environment block if any."""
    if design.environment is None:
        return for_mode(design.memory, BASE_PROMPT, agents_md, memory, workspace.root, skills=skills,
                        skills_at="stable")
    cls = DESIGNS[design.memory]
    step = type(f"{cls.__name__}WithEnvironment", (WithEnvironment, cls), {})(BASE_PROMPT, agents_md, memory,
                                                                               workspace.root)
    step.skills, step.skills_at = skills, "stable"
    step.line = VolatileLine(design.environment, "", workspace, now)
    return step


def with_child_mode(turns: list[dict], mode: str | None) -> list[dict]:
    """The script's turns, every spawn_agent call asking for ``mode`` (None: as written)."""
    if mode is None:
        return list(turns)
    return [{**t, "args": {**t["args"], "mode": mode}} if t.get("tool") == "spawn_agent" else t for t in turns]


class WholeTaskRecorder(Recorder):
    """The whole task, then the same task under a token budget; each on a fresh server."""

    experiment = EXPERIMENT
    script_file = WHOLE_TASK_DIR / "script.yml"
    repository = Repository(TOY_REPO)
    variants = ("whole", "budget")
    server_args = tuple(SERVER_ARGS)

    def compactor(self, order: list[float], tools: list[dict], design: Design = AS_SHIPPED) -> Compactor:
        s = self.script
        summary_model = StampedModel(self.model(), order, self.clock, max_tokens=s["summary_max_tokens"],
                                     temperature=0)
        summarise = model_summariser(summary_model, tools=tools) if design.summary_tools else \
            model_summariser(summary_model)
        if design.trigger == "every-n":  # as A5·1 records it: the message count only
            return Compactor(10**9, summarise, keep_rounds=s["keep_rounds"], max_messages=design.max_messages)
        return Compactor(threshold(s["window"], s["reserve"]), summarise,
                         keep_rounds=s["keep_rounds"], count_tokens=exact_counter(tools))

    def now(self, order: list[float], child_orders: dict[int, list[float]]) -> Callable[[], datetime]:
        """The clock an environment block shows, given the send times noted so far (the parent's and its
        children's); a recorder whose designs have such a block says what it is."""
        raise TypeError(f"{type(self).__name__} has no clock for an environment block")

    def run(self, sid: str, limits: Limits, design: Design = AS_SHIPPED, info: dict | None = None) -> Session:
        s = self.script
        workspace, memory = self.fresh_copy(sid)
        for note in s["notes"]:
            memory.add(note)
        skills = SkillSet(SKILLS, label="skills")
        session = Session.open(self.out / f"{sid}.jsonl")
        order, child_orders = [], {}

        def model_for(number: int, mode: str):
            child_orders[number] = []
            return StampedPolicy(self.model(), list(s["child"]), f"call_{sid}_child{number}", self.clock,
                                 order=child_orders[number])

        def steps_for(number: int, mode: str):
            return [self.compactor(child_orders[number], agents.toolbox.definitions, design)]

        agents = add_children(Toolbox(workspace, memory, skills), session, model_for, steps_for=steps_for,
                              log=self.log, limits=ChildLimits(depth=1, limits=Limits(max_rounds=CHILD_ROUNDS)))
        tools = agents.toolbox
        now = self.now(order, child_orders) if design.environment else None
        prompt = memory_design(design, read_agents_md(workspace.root), memory, workspace, skills.index, now)
        policy = StampedPolicy(self.model(), with_child_mode(s["parent"], design.child), f"call_{sid}",
                               self.clock, order=order)
        run_task(s["task"].strip(), model=policy, toolbox=tools, session=session,
                 steps=[self.compactor(order, tools.definitions, design), prompt], limits=limits, log=self.log)
        info = {"variant": sid, **(info or {})}
        if sid == "budget":
            info["budget"] = s["budget"]
        self._register({"id": sid, "file": session.path.name, "group": design.memory, "day": 1, "kind": "main",
                        **info}, session, 0, order)
        for number, entry in enumerate(child_entries(session), start=1):
            self._register({"id": f"{sid}-child{number}", "file": entry["path"], "group": design.memory, "day": 1,
                            "kind": "child", "child_of": {"session": sid, "entry": entry["id"], "mode": entry["mode"]},
                            **info}, open_child(session, entry), 0, child_orders[number])
        # the server saw them by time: the child's requests came while the parent waited for its tool
        self.manifest["order"].sort(key=lambda item: (item["epoch"], item["t"]))
        write_manifest(self.out, self.manifest)
        return session

    def record(self) -> dict:
        s = self.script
        self.manifest["compaction"] = {"window": s["window"], "reserve": s["reserve"],
                                       "budget": threshold(s["window"], s["reserve"]),
                                       "keep_rounds": s["keep_rounds"], "summary_max_tokens": s["summary_max_tokens"]}
        for variant in self.on_fresh_servers():
            if variant == "whole":
                self.run("whole", Limits(max_rounds=len(s["parent"])))
            else:
                self.run("budget", Limits(max_rounds=len(s["parent"]), max_tokens=s["budget"]))
        return self.finish()


RECORDER = WholeTaskRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


if __name__ == "__main__":
    import sys

    sys.exit(main(prog="python -m chapters.a8.experiments.whole_task"))
