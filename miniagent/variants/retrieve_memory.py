"""Lesson A6·R, mode ``retrieve``: every user turn, the matching notes ride along in that turn's user message.

This is the shape of Hermes Agent's external memory provider: before the tool loop of a new
request, the provider recalls what matches the request, and the text is added to *the current
turn's user message* at API-call time only; earlier turns are sent without it (Hermes never
stores it in the conversation). The system prompt never changes. Here:

- the query is the user's request, the recall is the ``k`` best notes by BM25 (retriever.py),
  the same as mode ``select``;
- the notes follow the request in the same user message, under ``RECALL_HEADER``;
- at the next request, the earlier message goes back to the user's words alone (``updates``).
  No match, no block.

What it costs the prompt cache: within one turn nothing moves (every call repeats the same
message). At the next turn the earlier message loses its notes, so the prefix breaks right
after that message's own words (where the notes were, the message now ends): the server keeps
everything before, and recomputes every round of that earlier turn after it.
"""
from __future__ import annotations

from pathlib import Path

from ..injection import Chat, MemoryInjection, Update
from ..memory import ENTRY_DELIMITER, MemoryStore
from ..prompt import SystemPrompt
from .select_memory import TOP_K, pick_notes

RECALL_HEADER = "# Memory recalled for this request (saved notes, not the user's words)"
RECALL_MARK = f"\n\n{RECALL_HEADER}\n\n"


def with_recalled(text: str, notes: list[str]) -> str:
    """The user's ``text`` followed by the recalled ``notes`` (just ``text`` when there are none)."""
    return f"{text}{RECALL_MARK}{ENTRY_DELIMITER.join(notes)}" if notes else text


def split_recalled(text: str) -> tuple[str, str] | None:
    """(the user's text, the recalled notes) of a message built by ``with_recalled``; None otherwise."""
    at = text.rfind(RECALL_MARK)
    return None if at < 0 else (text[:at], text[at + len(RECALL_MARK):])


class Retrieve(MemoryInjection):
    """No memory in the system prompt; the current user message carries the notes recalled for it."""

    mode = "retrieve"

    def __init__(self, base: str, agents_md: str, memory: MemoryStore, workspace: Path | None = None,
                 k: int = TOP_K):
        super().__init__(base, agents_md, memory, workspace)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        self.k = k

    def current(self) -> SystemPrompt:
        return self.prompt(None)

    def user_message(self, text: str, chat: Chat) -> str:
        return with_recalled(text, pick_notes(self.memory.entries(), text, self.k))

    def updates(self, chat: Chat) -> list[Update]:
        """Earlier user messages that still carry notes go back to the user's words alone."""
        users = [(i, m) for i, m in chat if m["role"] == "user"]
        out = []
        for entry_id, message in users[:-1]:  # the last one is the current request: it keeps its notes
            if (parts := split_recalled(message["content"])) is not None:
                out.append((entry_id, {**message, "content": parts[0]}))
        return out
