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

from miniagent.memory import split_entries
from miniagent.prompt import EMPTY_MEMORY

from prefixlab.cache.attribution import split_system_prompt
from prefixlab.recording.format import Recording

SAVED_PREFIX = "Saved to MEMORY.md"


@dataclass(frozen=True)
class Lane:
    session: str
    day: int
    round: int
    on_disk: tuple[str, ...]  # memory entries in MEMORY.md when the request was sent
    in_context: tuple[str, ...]  # memory entries in that request's system prompt
    refreshed: bool  # the system prompt changed right before this request
    tool: str | None  # the tool the reply to this request called (None: a final answer)

    @property
    def lagging(self) -> bool:
        """Disk already has something the prompt does not show yet."""
        return self.on_disk != self.in_context


def memory_in_prompt(system_text: str) -> tuple[str, ...]:
    """The memory entries a miniagent system prompt carries (empty if none)."""
    blocks = split_system_prompt(system_text)
    if blocks is None:
        raise ValueError("not a miniagent system prompt: no memory header")
    body = dict(blocks)["memory_body"]
    return () if body == EMPTY_MEMORY else tuple(split_entries(body))


def session_lanes(recording: Recording, session: str, disk: list[str]) -> list[Lane]:
    """One Lane per request of ``session``; ``disk`` (the memory entries on disk) is updated in place."""
    day = recording.session_info(session)["day"]
    out: list[Lane] = []
    pending: dict[str, str] = {}  # tool_call id -> note of a remember call
    system, refreshed, sent = None, False, None
    for entry in recording.session_path(session):
        kind = entry["type"]
        if kind in ("system", "system_refresh"):
            system, refreshed = entry["content"], kind == "system_refresh"
        elif kind == "model_call":
            sent = (entry["round"], tuple(disk), memory_in_prompt(system), refreshed)
            refreshed = False
        elif kind == "message":
            message = entry["message"]
            calls = message.get("tool_calls") or []
            if message["role"] == "assistant" and sent is not None:
                out.append(Lane(session, day, *sent, calls[0]["function"]["name"] if calls else None))
                sent = None
            for call in calls:
                if call["function"]["name"] == "remember":
                    pending[call["id"]] = json.loads(call["function"]["arguments"])["note"]
            if message["role"] == "tool" and message["tool_call_id"] in pending \
                    and message["content"].startswith(SAVED_PREFIX):
                disk.append(pending.pop(message["tool_call_id"]))
    return out


def lanes(recording: Recording, group: str) -> list[Lane]:
    """Day 1 then day 2 of one group; day 2 starts with the disk as day 1 left it."""
    disk: list[str] = []
    return [lane for day in (1, 2) for lane in session_lanes(recording, f"{group}-day{day}", disk)]
