"""Masking: old tool results shrink to their first line; the session file keeps them whole.

Before each model call (a step the loop runs, see loop.py) every tool result older than the
last ``keep_rounds`` rounds is cut to its first line, once: a ``message_refresh`` entry says
that from here on the message reads the short text (session.py). Nothing is deleted from the
file; only the path the model sees changes. A result of one line is left as it is.

Compaction (compaction.py) replaces old rounds with a summary the model must write; masking
keeps every round and drops only the bulk of old outputs, which the model has already acted on.
A round is what compaction calls a round (``round_starts``).

Why the first line and no "[output removed]" marker: everything after the first changed token
of a request is new to the server's prompt cache. The cut result is a prefix of the old one, so
the request goes on, token for token, with what followed the old result; llama-server started
with ``--cache-reuse N`` finds that run in its slot and shifts it into place instead of
computing it again (llama.cpp tools/server/server-context.cpp, the cache-reuse loop). A marker
would be new text right where the request changes, and nothing after it would be found.
``ToolResultMasking(placeholder=...)`` does exactly that (to measure the difference).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .compaction import round_starts
from .session import Session

KEEP_ROUNDS = 2  # the results of the last two calls stay whole


def first_line(text: str) -> str:
    return text.split("\n", 1)[0]


def mask(session: Session, entry_id: str, message: dict, placeholder: str | None = None) -> dict:
    """From here on, the tool result of entry ``entry_id`` (now ``message``) reads its first line
    (or ``placeholder`` instead, when one is given)."""
    short = first_line(message["content"]) if placeholder is None else placeholder
    return session.append("message_refresh", targetId=entry_id, message={**message, "content": short})


@dataclass
class ToolResultMasking:
    keep_rounds: int = KEEP_ROUNDS
    placeholder: str | None = None  # None: keep the first line; a text: replace the whole result with it

    def __post_init__(self):
        if isinstance(self.keep_rounds, bool) or not isinstance(self.keep_rounds, int) or self.keep_rounds < 0:
            raise ValueError(f"keep_rounds must be a whole number, 0 or more, not {self.keep_rounds!r}")
        if self.placeholder is not None and (not isinstance(self.placeholder, str) or "\n" in self.placeholder):
            raise ValueError(f"placeholder must be one line of text, not {self.placeholder!r}")

    # -- the step the loop runs (loop.Step) -------------------------------------------------------------
    def start(self, session: Session, task: str) -> str:
        return task

    def before_call(self, session: Session, round_no: int, log: Callable[[str], None]) -> None:
        """Cut every tool result older than the last ``keep_rounds`` rounds to its first line."""
        _, chat = session.visible()
        starts = round_starts([message for _, message in chat])
        if len(starts) <= self.keep_rounds:
            return
        older = chat[:starts[-self.keep_rounds]] if self.keep_rounds else chat
        short = first_line if self.placeholder is None else (lambda text: self.placeholder)
        masked = [mask(session, entry_id, message, self.placeholder) for entry_id, message in older
                  if message["role"] == "tool" and isinstance(message.get("content"), str)
                  and short(message["content"]) != message["content"]]
        if masked:
            what = "their first line" if self.placeholder is None else f"{self.placeholder!r}"
            log(f"round {round_no}: {len(masked)} older tool result(s) cut to {what}")
