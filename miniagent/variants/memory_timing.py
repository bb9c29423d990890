"""Lesson A6·2's designs: three more places and times for the memory, measured against ``frozen``.

Chapter A6·2 asks when a note written mid-session should reach the requests. miniagent's own
answer is ``frozen`` (injection.py); these three are the lesson's experiment groups, kept so
that the recordings can be made again and the learner can run them (``--mode``):

    mode         the memory is in ...                          a note written this session is seen ...
    frozen       the system prompt, as it was at session start  next session
    refresh      the system prompt, rebuilt before every call   at the next call; the prefix breaks in
                                                                the system prompt, before the tools
    append       the system prompt, as it was at session start  at the next call, in a user message
                 + update messages at the end                   added at the end; the prefix holds
    after-tools  the first user message, rebuilt before         at the next call; the prefix breaks in
                 every call                                     the first user message, after the tools

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
"""
from __future__ import annotations

from ..injection import Chat, Frozen, MemoryInjection, Update
from ..memory import ENTRY_DELIMITER, split_entries
from ..prompt import EMPTY_MEMORY, MEMORY_HEADER, SystemPrompt

MEMORY_UPDATE = "[memory updated] "  # how an update message of mode append starts
TASK_HEADER = "# Task"  # after-tools: what follows the memory block in the first user message


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
