"""A3·2: who decides whether a tool call runs — the policy, an allow-list, and the human.

Reading tools always run. A call that changes something (write_file, edit_file,
run_command) runs under the policy:

``auto``   it runs: nobody is asked.
``never``  it does not run: nobody is asked, the model reads that it was refused.
``ask``    the allow-list decides first; a call not on it is shown to the human,
           who says yes or no.

An allow-list rule is a tool name (``"edit_file"``: every edit runs) or a tool
and a command prefix (``"run_command: python -m unittest"``). A prefix rule
matches only a command without shell operators: otherwise
``python -m unittest; rm -rf .`` would start with an allowed prefix.

Approval fails closed: only the answer ``True`` lets a call run (a human who
answers ``"no"``, ``None`` or anything else has not said yes); a rule that says
``tool:`` with no prefix after the colon matches nothing (it is refused when the
allow-list is built); an allow-list must be a list or tuple of strings, so a
lone string is not read letter by letter.

A refused call is not an exception: ``check`` returns the message the model
reads as the call's result, and the conversation goes on.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, TextIO

POLICIES = ("ask", "auto", "never")
# remember writes only the agent's own notes file, outside the repository; spawn_agent changes nothing
# itself, and its child's calls go through the same approval one by one (children.py shares it)
READ_ONLY_TOOLS = ("list_files", "read_file", "read_skill", "remember", "spawn_agent")
# Characters that join or redirect commands in a shell: a prefix rule never covers a command with one.
SHELL_OPERATORS = (";", "&", "|", "`", "$(", ">", "<", "\n")


def rule_allows(rule: str, name: str, args: dict) -> bool:
    """Whether one allow-list ``rule`` covers the call ``name(args)``."""
    tool, colon, prefix = (part.strip() for part in rule.partition(":"))
    if tool != name or (colon and not prefix):  # "run_command:" names no prefix: it covers nothing
        return False
    if not colon:  # a bare tool name covers every call of that tool
        return True
    command = args.get("command", "").strip()
    return command.startswith(prefix) and not any(op in command for op in SHELL_OPERATORS)


def rule_problem(rule) -> str | None:
    """What is wrong with one allow-list rule, or None: a tool name, or a tool, a colon and a prefix."""
    if not isinstance(rule, str):
        return f"a rule is a string, not {type(rule).__name__}"
    tool, colon, prefix = (part.strip() for part in rule.partition(":"))
    if not tool:
        return "it names no tool"
    if colon and not prefix:
        return "nothing after the colon; write the command prefix, or the tool name alone to allow every call"
    return None


@dataclass
class Approval:
    """The approval policy of one session; ``asked`` keeps every question put to the human, in order."""

    policy: str = "ask"
    allow: tuple[str, ...] = ()
    human: Callable[[str, dict], bool] | None = None  # asked under "ask"; True lets the call run
    asked: list = field(default_factory=list)  # (tool name, arguments, answer)

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(f"unknown approval policy {self.policy!r}; choose one of {', '.join(POLICIES)}")
        if self.policy == "ask" and self.human is None:
            raise ValueError("the 'ask' policy needs a human to ask")
        if not isinstance(self.allow, (list, tuple)):  # a str would be read as one rule per letter
            raise ValueError(f"the allow-list must be a list or tuple of rules, not {type(self.allow).__name__} "
                             f"{self.allow!r}")
        self.allow = tuple(self.allow)
        for rule in self.allow:
            if problem := rule_problem(rule):
                raise ValueError(f"allow-list rule {rule!r}: {problem}")

    def check(self, name: str, args: dict) -> str | None:
        """None if the call may run, else the message the model gets instead of its result."""
        if name in READ_ONLY_TOOLS or self.policy == "auto":
            return None
        if self.policy == "never":
            return f"error: {name} needs approval and this session runs without asking anyone; it did not run"
        if any(rule_allows(rule, name, args) for rule in self.allow):
            return None
        answer = self.human(name, args) is True  # only a yes is a yes: "no", None, 1 ... do not approve
        self.asked.append((name, args, answer))
        return None if answer else f"error: the user did not approve this {name} call; it did not run"


def describe(name: str, args: dict) -> str:
    """One line saying what a call would do, for the question put to the human."""
    if name == "run_command":
        return f"run the command {args.get('command')!r}"
    if name == "write_file":
        return f"write {len(str(args.get('content', '')))} characters to {args.get('path')!r}"
    if name == "edit_file":
        return f"edit {args.get('path')!r}: replace {str(args.get('old', ''))[:60]!r} with {str(args.get('new', ''))[:60]!r}"
    return f"call {name} with {args!r}"


def terminal_human(answers: TextIO, out: TextIO) -> Callable[[str, dict], bool]:
    """A human at a terminal: the question on ``out``, the answer one line from ``answers``.

    Only ``y`` or ``yes`` is a yes; anything else, an empty line or the end of input is a no."""
    def human(name: str, args: dict) -> bool:
        print(f"miniagent wants to {describe(name, args)}. Allow it? [y/N] ", end="", file=out, flush=True)
        return answers.readline().strip().lower() in ("y", "yes")
    return human


def scripted_human(answers: list[bool]) -> Callable[[str, dict], bool]:
    """A human who answers from a list, in order (the recorded experiments use it); no answer left is a no."""
    queue = list(answers)
    return lambda name, args: queue.pop(0) if queue else False
