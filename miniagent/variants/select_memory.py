"""Lesson A6·R, mode ``select``: every user turn, the notes that match the request go into the system prompt.

This is the shape of learn-claude-code's lesson s09: before the loop works on a new request,
it picks the notes relevant to that request and rebuilds the system prompt with them. Here:

- the query is the user's request, the pick is the ``k`` best notes by BM25 (retriever.py);
- the picked notes are the memory block of the system prompt, for every call of that turn;
- the next request picks again from the notes on disk (a note written earlier can be picked).

What it costs the prompt cache: when the pick changes, the system prompt changes, and the
prefix breaks inside it, before the tool definitions (the chat template prints them after the
system text), so the server recomputes the tools and the whole history after them.

Two differences from s09, on purpose: s09 asks the model to choose from a catalogue of note
names (and lists that catalogue in the system prompt too); here the same BM25 retriever as mode
``retrieve`` chooses, so the two designs differ only in *where* and *when* the notes go.
"""
from __future__ import annotations

from pathlib import Path

from ..injection import Chat, MemoryInjection
from ..memory import ENTRY_DELIMITER, MemoryStore
from ..prompt import SystemPrompt
from ..retriever import Retriever

TOP_K = 5  # s09 also keeps at most five notes per request
NO_MATCH = "(no saved note matches this request)"


def pick_notes(notes: list[str], query: str, k: int) -> list[str]:
    """The at most ``k`` notes that match ``query`` best, best first."""
    return [notes[i] for i in Retriever(notes).search(query, k)]


class Select(MemoryInjection):
    """The system prompt carries the notes picked for the current user request."""

    mode = "select"

    def __init__(self, base: str, agents_md: str, memory: MemoryStore, workspace: Path | None = None,
                 k: int = TOP_K):
        super().__init__(base, agents_md, memory, workspace)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        self.k = k
        self.picked: list[str] = []  # the notes of the current request

    def current(self) -> SystemPrompt:
        return self.prompt(ENTRY_DELIMITER.join(self.picked) or NO_MATCH)

    def user_message(self, text: str, chat: Chat) -> str:
        self.picked = pick_notes(self.memory.entries(), text, self.k)
        return text  # the request itself is sent as the user typed it
