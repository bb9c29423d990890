"""What memory is on disk, and what memory is in the prompt, at every recorded request.

"On disk" is replayed from the session itself: a ``remember`` call whose tool
result says it was saved changes the disk from the next request on (the write
happens while the tools of that round run). "In context" is read from the
system message of each request as it was sent. Day 2 starts with the disk as
day 1 left it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from miniagent.memory import ENTRY_DELIMITER
from miniagent.prompt import EMPTY_MEMORY, MEMORY_HEADER

from .recording import Recording

SAVED_PREFIX = "Saved to MEMORY.md"


@dataclass(frozen=True)
class Lane:
    session: str
    day: int
    round: int
    on_disk: tuple[str, ...]  # memory entries in MEMORY.md when the request was sent
    in_context: tuple[str, ...]  # memory entries in that request's system prompt
    refreshed: bool  # the system prompt changed right before this request

    @property
    def lagging(self) -> bool:
        """Disk already has something the prompt does not show yet."""
        return self.on_disk != self.in_context


def memory_in_prompt(system_text: str) -> tuple[str, ...]:
    """The memory entries a miniagent system prompt carries (empty if none)."""
    marker = f"{MEMORY_HEADER}\n\n"
    if marker not in system_text:
        raise ValueError("not a miniagent system prompt: no memory header")
    body = system_text.split(marker, 1)[1]
    return () if body == EMPTY_MEMORY else tuple(body.split(ENTRY_DELIMITER))


def lanes(recording: Recording, group: str) -> list[Lane]:
    """Day 1 then day 2 of one group, one Lane per request."""
    out: list[Lane] = []
    disk: list[str] = []
    for day in (1, 2):
        session = f"{group}-day{day}"
        pending: dict[str, str] = {}  # tool_call id -> note of a remember call
        system, refreshed = None, False
        for entry in recording.session_path(session):
            kind = entry["type"]
            if kind in ("system", "system_refresh"):
                system, refreshed = entry["content"], kind == "system_refresh"
            elif kind == "model_call":
                out.append(Lane(session, day, entry["round"], tuple(disk), memory_in_prompt(system), refreshed))
                refreshed = False
            elif kind == "message":
                message = entry["message"]
                for call in message.get("tool_calls") or []:
                    if call["function"]["name"] == "remember":
                        pending[call["id"]] = json.loads(call["function"]["arguments"])["note"]
                if message["role"] == "tool" and message["tool_call_id"] in pending \
                        and message["content"].startswith(SAVED_PREFIX):
                    disk.append(pending.pop(message["tool_call_id"]))
    return out


@dataclass(frozen=True)
class RoundEvent:
    round: int
    tool: str | None  # the tool the assistant called in reply to this request (None: final answer)
    refreshed: bool  # the system prompt was replaced right before this request


def round_events(recording: Recording, session: str) -> list[RoundEvent]:
    """What happened at each request of a session: which tool the reply called, whether a refresh preceded it."""
    out, refreshed, waiting = [], False, None
    for entry in recording.session_path(session):
        if entry["type"] == "system_refresh":
            refreshed = True
        elif entry["type"] == "model_call":
            waiting = entry["round"]
        elif entry["type"] == "message" and entry["message"]["role"] == "assistant" and waiting is not None:
            calls = entry["message"].get("tool_calls") or []
            out.append(RoundEvent(waiting, calls[0]["function"]["name"] if calls else None, refreshed))
            refreshed, waiting = False, None
    return out
