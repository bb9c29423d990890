"""Child agents: a subtask handed to a second loop with its own conversation (chapter A7).

Opt-in: ``add_children(toolbox, session, model_for)`` returns a copy of the toolbox with one
more tool, ``spawn_agent``, last in the list; an agent that does not ask for it sends exactly
what it sent before.

The model calls ``spawn_agent`` with a **brief**: the goal, the context the child needs, the
shape of the report it must return. The tool runs a whole task with ``run_task`` (loop.py) --
the child's own loop, its own session file, its own ``Limits`` -- and the child's final answer
is the tool's result: the parent's context grows by the report, not by everything the child read.

Two ways to start a child (``mode``):

- ``fresh``: a new conversation: a system prompt (by default the parent's, so base prompt and
  tools are the same bytes the server has seen), then the brief as the first user message.
- ``fork``: the parent's conversation as its last request carried it, then the brief as the next
  user message: the child knows everything the parent knew, and its first request starts with
  the parent's last one.

Either way the child gets the parent's tool definitions unchanged (the same bytes in the
prefix). A child at the depth limit that asks for a grandchild gets an error as the result.

Children in parallel (chapter A7·4, opt-in: ``add_children(..., parallel=True)``): when one
assistant message holds several ``spawn_agent`` calls, the first of them starts every child of that
message at once, each in its own thread with its own session file, waits for all, and writes their
``child`` entries in call order; the loop then reads each call's report in turn. Off by default:
the children of one message then run one after the other.

Where it is written (the contract chapter A8's bill reads; entry types: session.py):

- the child's session file ``<parent-stem>.children/<child-id>.jsonl``, next to the parent's; its
  ``system`` entry carries ``parentSession``: ``path`` (the parent's file name, relative to the
  folder that holds the ``.children`` folder) and ``entryId`` (the parent's ``child`` entry,
  whose id is also the child's id);
- when the child is done, the parent gets one ``child`` entry: ``toolCallId`` (the call that
  spawned it), ``path`` (the child's file relative to the parent's folder), ``mode``, ``status``
  (``done``; ``stopped``: a limit ended it; ``failed``: the model could not be reached) and
  ``usage`` (the child's ledger, its own children included); then, as for any tool, the ``tool``
  message with the report.
"""
from __future__ import annotations

import copy
import json
import threading
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .loop import Limits, Log, Model, Step, run_task
from .model import ModelError
from .session import KINDS, Kind, Session, new_entry_id, usage_ledger
from .system_message import FixedPrompt
from .tools import ToolError, tool

MODES = ("fresh", "fork")
BRIEF_LIMIT = 4000  # characters of the three brief fields together: a brief, not a transcript
# The user message a child starts with: the brief in a fixed shape.
BRIEF_TEMPLATE = ("You are a child agent working for another agent. Do this one task and answer with the "
                  "report it asks for; your answer is all the other agent will read.\n\n"
                  "Goal: {goal}\n\nContext: {context}\n\nReport: {output}")
FIELD_HINTS = {"goal": "achieve", "context": "know before it starts", "output": "return"}


def brief_text(goal: str, context: str, output: str) -> str:
    """The child's first user message; a ToolError if a field is empty or the brief too long."""
    fields = {"goal": goal, "context": context, "output": output}
    for name, value in fields.items():
        if not value.strip():
            raise ToolError(f"the brief's {name!r} is empty; say what the child must {FIELD_HINTS[name]}")
    size = sum(len(v) for v in fields.values())
    if size > BRIEF_LIMIT:
        raise ToolError(f"the brief is {size} characters, more than {BRIEF_LIMIT}; give the child the facts "
                        "it needs, not the whole conversation (or use mode 'fork')")
    return BRIEF_TEMPLATE.format(**{k: v.strip() for k, v in fields.items()})


def pending_call_id(session: Session, name: str) -> str:
    """Id of the tool call being run now: the first call named ``name`` of the last assistant
    message on the path that has no tool result yet (the loop runs a message's calls in order)."""
    calls, answered = [], set()
    for _, message in session.visible()[1]:
        if message["role"] == "assistant":
            calls, answered = message.get("tool_calls") or [], set()
        elif message["role"] == "tool":
            answered.add(message.get("tool_call_id"))
    for call in calls:
        if call["function"]["name"] == name and call["id"] not in answered:
            return call["id"]
    raise ToolError(f"{name} was called outside a model's tool call; there is no call to answer")


def last_request(session: Session) -> list[dict]:
    """The messages of the session's last request: the path's messages before its last assistant message."""
    messages = session.messages()
    last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=len(messages))
    return messages[:last]


@dataclass(frozen=True)
class ChildLimits:
    """How far delegation may go: ``depth`` levels of children below the first agent (1: children,
    no grandchildren), and the ``Limits`` every child's loop runs under (rounds, tokens, seconds)."""

    depth: int = 1
    limits: Limits = field(default_factory=lambda: Limits(max_rounds=10))

    def __post_init__(self):
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1:
            raise ValueError(f"depth must be a whole number of at least 1, not {self.depth!r}")
        if not isinstance(self.limits, Limits):
            raise ValueError(f"limits must be a loop.Limits, not {type(self.limits).__name__}")


class ChildAgents:
    """The ``spawn_agent`` tool of one agent (``level`` 0: the first agent; its children are at 1).

    ``model_for(number, mode)``: the model the ``number``-th child talks to (1, 2, ... in the order the
    children start, grandchildren included: one count for the whole tree).
    ``system``: a fresh child's system prompt (default: the parent's system message at that moment).
    ``toolbox``: the tools a child gets (set by ``add_children``: the parent's, this tool included).
    ``steps_for(number, mode)``: steps a child's loop runs before its system prompt's (e.g. a Compactor).
    """

    def __init__(self, session: Session, model_for: Callable[[int, str], Model], *,
                 limits: ChildLimits | None = None, level: int = 0, system: str | None = None,
                 steps_for: Callable[[int, str], Sequence[Step]] | None = None, log: Log = lambda line: None,
                 started: list[int] | None = None, parallel: bool = False):
        self.session, self.model_for, self.level, self.system, self.log = session, model_for, level, system, log
        self.parallel = parallel
        self.reports: dict[str, str | ToolError] = {}  # parallel: each call's report, read as the loop gets to it
        self.steps_for = steps_for
        self.limits = limits or ChildLimits()
        self.toolbox = None
        self.started = started if started is not None else [0]  # children started in the whole tree

    @tool("Hand one self-contained subtask to a child agent with its own context; its report is the result.",
          goal="What the child must achieve, in one or two sentences",
          context="What the child must know before it starts (files, findings, constraints)",
          output="The shape of the report to return, e.g. 'at most 5 lines: file - finding'",
          mode="'fresh' (a new conversation) or 'fork' (a copy of this conversation)")
    def spawn_agent(self, goal: str, context: str, output: str, mode: str) -> str:
        if self.parallel:
            return self.spawn_together(pending_call_id(self.session, "spawn_agent"))
        if mode not in MODES:
            raise ToolError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        brief = brief_text(goal, context, output)
        if self.level >= self.limits.depth:
            raise ToolError(f"depth limit reached: this agent is at depth {self.level} and children may go "
                            f"{self.limits.depth} deep; do the task yourself")
        call_id = pending_call_id(self.session, "spawn_agent")
        self.started[0] += 1
        return self.run_child(brief, mode, call_id, self.started[0])

    def spawn_together(self, call_id: str) -> str:
        """Parallel: the first spawn_agent call of a message runs every child the message asks for."""
        if call_id not in self.reports:
            messages = self.session.messages()
            calls = [c for c in (messages[-1].get("tool_calls") or []) if c["function"]["name"] == "spawn_agent"]
            jobs, entries = [], {}
            for call in calls:
                try:
                    brief, mode = self.brief_for(call["function"]["arguments"])
                except ToolError as err:
                    self.reports[call["id"]] = err
                    continue
                self.started[0] += 1
                jobs.append((brief, mode, call["id"], self.started[0]))
            threads = [threading.Thread(target=self.run_child, args=job, kwargs={"later": entries}) for job in jobs]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            for _, _, cid, _ in jobs:  # the child entries in call order, whoever finished first
                if cid in entries:
                    report, entry = entries[cid]
                    self.session.append("child", **entry)
                    self.reports[cid] = report
                else:
                    self.reports[cid] = ToolError("the child crashed before it reported; see the log")
        result = self.reports.pop(call_id, None)
        if result is None:
            raise ToolError(f"spawn_agent call {call_id} is not in the last assistant message")
        if isinstance(result, ToolError):
            raise result
        return result

    def brief_for(self, arguments: str) -> tuple[str, str]:
        """Parallel: one call's brief and mode, checked as spawn_agent checks them (a ToolError if not)."""
        try:
            args = json.loads(arguments or "{}")
        except ValueError as err:
            raise ToolError(f"the arguments are not JSON: {err}") from None
        mode = args.get("mode") if isinstance(args, dict) else None
        if mode not in MODES:
            raise ToolError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        brief = brief_text(*(str(args.get(k, "")) for k in ("goal", "context", "output")))
        if self.level >= self.limits.depth:
            raise ToolError(f"depth limit reached: this agent is at depth {self.level} and children may go "
                            f"{self.limits.depth} deep; do the task yourself")
        return brief, mode

    def run_child(self, brief: str, mode: str, call_id: str, number: int, later: dict | None = None) -> str:
        """Run one child to its end and return its report. ``later`` (parallel): keep the parent's
        ``child`` entry there, by call id, instead of writing it now."""
        parent, child_id = self.session, new_entry_id()
        folder = parent.path.with_name(f"{parent.path.stem}.children")
        child = Session(folder / f"{child_id}.jsonl")
        history = last_request(parent)
        parent_system = history[0]["content"] if history and history[0]["role"] == "system" else ""
        if mode == "fork":
            system, history = parent_system, history[1:] if history and history[0]["role"] == "system" else history
        else:
            system, history = (self.system if self.system is not None else parent_system), []
        # The first entry links the child to its parent; FixedPrompt then finds it already set.
        child.append("system", content=system, parentSession={"path": parent.path.name, "entryId": child_id})
        for message in history:
            child.append("message", message=message)
        grandchildren = ChildAgents(child, self.model_for, limits=self.limits, level=self.level + 1,
                                    system=self.system, steps_for=self.steps_for, log=self.log,
                                    started=self.started, parallel=self.parallel)
        grandchildren.toolbox = with_child_tool(self.toolbox, grandchildren)
        model = self.model_for(number, mode)
        extra = list(self.steps_for(number, mode)) if self.steps_for else []
        self.log(f"  child {number} ({mode}) starts: {folder.name}/{child.path.name}")
        status = "done"
        try:
            report = run_task(brief, model=model, toolbox=grandchildren.toolbox,
                              session=child, steps=[*extra, FixedPrompt(system)], limits=self.limits.limits,
                              log=lambda line: self.log(f"    {line}"))
        except ModelError as err:
            status, report = "failed", f"the child failed: {err}"
        if status == "done" and child.entries[-1]["type"] == "stopped":
            status = "stopped"
            report = f"the child stopped before it answered ({child.entries[-1]['reason']}); there is no report"
        usage = usage_ledger(child.entries)
        entry = dict(entry_id=child_id, toolCallId=call_id, path=f"{folder.name}/{child.path.name}",
                     mode=mode, status=status, usage=usage)
        if later is None:
            parent.append("child", **entry)
        else:
            later[call_id] = (report, entry)
        self.log(f"  child {number} {status}: {usage['calls']} calls, {usage['prompt_tokens']} prompt tokens")
        return report


def with_child_tool(toolbox, agents: ChildAgents):
    """A copy of ``toolbox`` whose last tool is ``agents.spawn_agent``; ``toolbox`` itself is left as it is."""
    out = copy.copy(toolbox)
    out.handlers = {n: h for n, h in toolbox.handlers.items() if n != "spawn_agent"}
    out.handlers["spawn_agent"] = agents.spawn_agent
    out.definitions = [h.definition for h in out.handlers.values()]
    return out


def add_children(toolbox, session: Session, model_for: Callable[[int, str], Model], **options) -> ChildAgents:
    """The ``spawn_agent`` tool for an agent writing ``session``: hand ``agents.toolbox`` to ``run_task``.
    ``options``: ChildAgents' keywords (limits, system, steps_for, log, parallel)."""
    agents = ChildAgents(session, model_for, **options)
    agents.toolbox = with_child_tool(toolbox, agents)
    return agents


def child_entries(session: Session) -> list[dict]:
    """The ``child`` entries of a session, in the order its children finished."""
    return [e for e in session.entries if e.get("type") == "child"]


def open_child(session: Session, entry: dict) -> Session:
    """The session file of the child that ``entry`` (a ``child`` entry of ``session``) names."""
    path = session.path.parent / entry["path"]
    if not path.is_file():
        raise FileNotFoundError(f"{session.path}: child entry {entry['id']} names {entry['path']}, "
                                f"which is not a file in {session.path.parent}")
    return Session.open(path)


# A ``child`` entry (session.py) stands for its child's whole session: ``usage`` is that session's
# usage_ledger, and it counts towards the parent's budget and ledger.
KINDS["child"] = Kind(usage=lambda entry: entry["usage"] if isinstance(entry.get("usage"), dict) else {})
