"""Where the memory sits in each request, and when a note written mid-session gets there.

``remember`` puts a note on disk at once (memory.py). The designs, picked by ``--mode``,
differ only in how the requests carry the memory:

    mode         the memory is in ...                          a note written this session is seen ...
    frozen       the system prompt, as it was at session start  next session
    refresh      the system prompt, rebuilt before every call   at the next call; the prefix breaks in
                                                                the system prompt, before the tools
    append       the system prompt, as it was at session start  at the next call, in a user message
                 + update messages at the end                   added at the end; the prefix holds
    after-tools  the first user message, rebuilt before         at the next call; the prefix breaks in
                 every call                                     the first user message, after the tools

Two more pick *some* notes per user request with a retriever (retriever.py, BM25), each in a
module of its own: ``select`` (select_memory.py) puts them in the system prompt,
``retrieve`` (retrieve_memory.py) in that request's user message.

Why ``after-tools`` exists: the chat template (Qwen3's) prints the tool definitions right after
the system text, so any change in the system prompt makes the server recompute the tools too.
The first user message comes after them.

Why ``append`` adds a message of its own instead of relying on the ``remember`` tool result:
the result only says "Saved to MEMORY.md (133/2200 chars)", and the note in the tool call is
what the model *asked* to save. Relying on those two would send exactly frozen's requests: no
design of its own. The update message says what the memory *now holds* (the note as the store
kept it, and notes another session wrote to the same MEMORY.md), marked so the model can tell
it from a request of the user. It is worked out from the conversation itself (the snapshot plus
the update messages already in it), so if a compaction summarises an update away, it comes again.

Every design answers the loop the same questions (``MemoryInjection``); a new one overrides
what differs:

- ``current()``: the system prompt for the next call (calling the object gives its text);
- ``user_message(text, chat)``: a user message as it enters the conversation;
- ``updates(chat)``: messages to add at the end or to replace, before the next call;
- ``after_compaction()``: re-read AGENTS.md, since a compaction changed the prefix anyway.

(Choosing memories per turn fits the same questions: into the system prompt through
``current()``, or into the user's message through ``user_message()``.)
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from .agents_md import read_agents_md
from .memory import ENTRY_DELIMITER, MemoryStore, split_entries
from .prompt import EMPTY_MEMORY, MEMORY_HEADER, SystemPrompt

MEMORY_UPDATE = "[memory updated] "  # how an update message of mode append starts
TASK_HEADER = "# Task"  # after-tools: what follows the memory block in the first user message

Chat = list[tuple[str, dict]]  # (entry id, message) pairs, as Session.visible() gives them
Update = tuple[str | None, dict]  # (None: add at the end | entry id of the message to replace, message)


class MemoryInjection:
    """The interface the loop talks to; the subclasses below are the designs."""

    mode = ""

    # The skills block (e.g. SkillSet.index), built again for every call, so a skill written
    # mid-session is in the next request; and where it sits (prompt.py). for_mode sets them.
    skills: Callable[[], str] | None = None
    skills_at = "stable"

    def __init__(self, base: str, agents_md: str, memory: MemoryStore, workspace: Path | None = None):
        self.base, self.agents_md, self.memory = base.strip(), agents_md.strip(), memory
        self.workspace = workspace  # where AGENTS.md is re-read after a compaction (None: keep the text)
        self.snapshot = memory.text()  # the memory at session start

    def current(self) -> SystemPrompt:
        raise NotImplementedError

    def prompt(self, memory: str | None) -> SystemPrompt:
        """The system prompt with this memory text (None: no memory block) and the skills block now."""
        return SystemPrompt(self.base, self.agents_md, memory, self.skills() if self.skills else "", self.skills_at)

    def __call__(self) -> str:
        return self.current().text

    def user_message(self, text: str, chat: Chat) -> str:
        return text

    def updates(self, chat: Chat) -> list[Update]:
        return []

    def after_compaction(self) -> None:
        """Re-read AGENTS.md. The memory keeps its design's rule (frozen keeps its snapshot)."""
        if self.workspace is not None:
            self.agents_md = read_agents_md(self.workspace).strip()


class Frozen(MemoryInjection):
    """The system prompt keeps the memory of session start; new notes wait for the next session."""

    mode = "frozen"

    def current(self) -> SystemPrompt:
        return self.prompt(self.snapshot)


class Refresh(MemoryInjection):
    """The system prompt is rebuilt from disk before every call."""

    mode = "refresh"

    def current(self) -> SystemPrompt:
        return self.prompt(self.memory.text())


class Append(Frozen):
    """Frozen's system prompt; a note the conversation does not show yet comes as a user message at the end."""

    mode = "append"

    def updates(self, chat: Chat) -> list[Update]:
        shown = split_entries(self.snapshot)
        for _, message in chat:
            if message["role"] == "user" and message["content"].startswith(MEMORY_UPDATE):
                shown += split_entries(message["content"][len(MEMORY_UPDATE):])
        new = [entry for entry in self.memory.entries() if entry not in shown]
        if not new:
            return []
        return [(None, {"role": "user", "content": MEMORY_UPDATE + ENTRY_DELIMITER.join(new)})]


def with_memory(memory: str, text: str) -> str:
    """A user message that carries the memory block before ``text`` (mode after-tools)."""
    return f"{MEMORY_HEADER}\n\n{memory or EMPTY_MEMORY}\n\n{TASK_HEADER}\n\n{text}"


class AfterTools(MemoryInjection):
    """No memory in the system prompt; it leads the first user message and is rebuilt before every call."""

    mode = "after-tools"

    def current(self) -> SystemPrompt:
        return self.prompt(None)

    def user_message(self, text: str, chat: Chat) -> str:
        if any(message["role"] == "user" for _, message in chat):
            return text  # only the first user message carries the memory
        return with_memory(self.memory.text(), text)

    def updates(self, chat: Chat) -> list[Update]:
        first = next(((i, m) for i, m in chat if m["role"] == "user"), None)
        if first is None:
            return []
        entry_id, message = first
        wanted = with_memory(self.memory.text(), self.without_memory(message["content"]))
        return [] if wanted == message["content"] else [(entry_id, {**message, "content": wanted})]

    def without_memory(self, text: str) -> str:
        """``text`` without the memory block it starts with. Memory only grows, so that block was
        built from the first n entries now on disk, for some n: try them, longest first."""
        entries = self.memory.entries()
        for n in range(len(entries), -1, -1):
            block = with_memory(ENTRY_DELIMITER.join(entries[:n]), "")
            if text.startswith(block):
                return text[len(block):]
        return text  # no block yet, e.g. a compaction summary that just became the first message


from .retrieve_memory import Retrieve  # noqa: E402 (these two build on MemoryInjection above)
from .select_memory import Select  # noqa: E402

DESIGNS = {design.mode: design for design in (Refresh, Frozen, Append, AfterTools, Select, Retrieve)}
MODES = tuple(DESIGNS)


def for_mode(mode: str, base: str, agents_md: str, memory: MemoryStore,
             workspace: Path | None = None, skills: Callable[[], str] | None = None,
             skills_at: str = "stable") -> MemoryInjection:
    """The design called ``mode`` (the names of the CLI's ``--mode`` and of the recorded groups)."""
    if mode not in DESIGNS:
        raise ValueError(f"unknown memory mode {mode!r}; choose one of {', '.join(MODES)}")
    design = DESIGNS[mode](base, agents_md, memory, workspace)
    design.skills, design.skills_at = skills, skills_at
    return design
