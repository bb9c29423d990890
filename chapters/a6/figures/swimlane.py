"""Where the memory is at every recorded request: on disk, in the system prompt, in the conversation.

Three rows per request, for every group (memory design) of the experiment:

- "on disk" (``on_disk``) is replayed from the session itself: a ``remember`` call whose tool
  result says it was saved changes the disk from the next request on (the write happens while the
  tools of that round run). Day 2 starts with the disk as day 1 left it.
- "in the system prompt" (``in_system``, also called ``in_context``) is read from the system
  message of each request as it was sent.
- "in the conversation" (``in_messages``) is every memory entry the request's other messages
  carry, read from the request as it was sent; ``places`` says where: the ``remember`` call's
  arguments (``tool_call``), an update message of mode append (``update``), the memory block of
  the first user message of mode after-tools (``first_user``), another user message (``user``)
  or a tool result (``tool_result``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from miniagent.memory import split_entries
from miniagent.prompt import EMPTY_MEMORY
from miniagent.variants.memory_timing import MEMORY_UPDATE

from prefixlab.cache.attribution import split_system_prompt
from prefixlab.recording.format import Recording

SAVED_PREFIX = "Saved to MEMORY.md"
PLACES = ("tool_call", "tool_result", "update", "first_user", "user")  # the order ``places`` uses


@dataclass(frozen=True)
class Lane:
    session: str
    day: int
    round: int
    on_disk: tuple[str, ...]  # memory entries in MEMORY.md when the request was sent
    in_context: tuple[str, ...]  # memory entries in that request's system prompt
    refreshed: bool  # the system prompt changed right before this request
    tool: str | None  # the tool the reply to this request called (None: a final answer)
    in_messages: tuple[str, ...] = ()  # memory entries the request's other messages carry
    places: tuple[str, ...] = ()  # where those messages carry them (names from PLACES)
    rewritten: bool = False  # an earlier message was replaced right before this request (message_refresh)
    appended: bool = False  # a memory update message was added right before this request

    @property
    def in_system(self) -> tuple[str, ...]:
        return self.in_context

    @property
    def lagging(self) -> bool:
        """Disk already has something the system prompt does not show yet."""
        return self.on_disk != self.in_context

    @property
    def unseen(self) -> tuple[str, ...]:
        """Entries on disk that this request shows nowhere: neither in the system prompt nor in a message."""
        return tuple(e for e in self.on_disk if e not in self.in_context and e not in self.in_messages)


def memory_in_prompt(system_text: str) -> tuple[str, ...]:
    """The memory entries a miniagent system prompt carries (empty if none, or no memory block)."""
    blocks = split_system_prompt(system_text)
    if blocks is None:
        raise ValueError("not a miniagent system prompt: no memory header")
    body = dict(blocks).get("memory_body", EMPTY_MEMORY)  # no memory block: mode after-tools
    return () if body == EMPTY_MEMORY else tuple(split_entries(body))


def _texts(message: dict) -> list[str]:
    """The texts a message shows the model: its content, and the string arguments of its tool calls."""
    out = [message["content"]] if isinstance(message.get("content"), str) else []
    for call in message.get("tool_calls") or []:
        args = call["function"]["arguments"]
        args = json.loads(args) if isinstance(args, str) else args
        out += [v for v in args.values() if isinstance(v, str)]
    return out


def _place(message: dict, first_user: bool) -> str:
    if message["role"] == "assistant":
        return "tool_call"
    if message["role"] == "tool":
        return "tool_result"
    if message["content"].startswith(MEMORY_UPDATE):
        return "update"
    return "first_user" if first_user else "user"


def memory_in_messages(messages: list[dict], notes: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Which of ``notes`` the messages after the system message carry, and where (see PLACES)."""
    found, places = [], set()
    first_user = next((i for i, m in enumerate(messages) if m["role"] == "user"), None)
    for i, message in enumerate(messages):
        if message["role"] == "system":
            continue
        texts = _texts(message)
        for note in notes:
            if any(note in text for text in texts):
                found.append(note)
                places.add(_place(message, i == first_user))
    return tuple(dict.fromkeys(n for n in notes if n in found)), tuple(p for p in PLACES if p in places)


def session_lanes(recording: Recording, session: str, disk: list[str]) -> list[Lane]:
    """One Lane per request of ``session``; ``disk`` (the memory entries on disk) is updated in place."""
    day = recording.session_info(session)["day"]
    out: list[Lane] = []
    pending: dict[str, str] = {}  # tool_call id -> note of a remember call
    notes: list[str] = []  # every note the session asked to remember so far
    system, refreshed, rewritten, appended, sent = None, False, False, False, None
    for entry in recording.session_path(session):
        kind = entry["type"]
        if kind in ("system", "system_refresh"):
            system, refreshed = entry["content"], kind == "system_refresh"
        elif kind == "message_refresh":
            rewritten = True
        elif kind == "model_call":
            candidates = list(dict.fromkeys(disk + notes))
            in_messages, places = memory_in_messages(entry["request"]["messages"], candidates)
            sent = dict(round=entry["round"], on_disk=tuple(disk), in_context=memory_in_prompt(system),
                        refreshed=refreshed, in_messages=in_messages, places=places,
                        rewritten=rewritten, appended=appended)
            refreshed = rewritten = appended = False
        elif kind == "message":
            message = entry["message"]
            calls = message.get("tool_calls") or []
            if message["role"] == "assistant" and sent is not None:
                out.append(Lane(session, day, tool=calls[0]["function"]["name"] if calls else None, **sent))
                sent = None
            if message["role"] == "user" and message["content"].startswith(MEMORY_UPDATE):
                appended = True
            for call in calls:
                if call["function"]["name"] == "remember":
                    args = call["function"]["arguments"]
                    note = (json.loads(args) if isinstance(args, str) else args)["note"].strip()
                    pending[call["id"]] = note  # stripped, as the store keeps it
                    notes.append(note)
            if message["role"] == "tool" and message["tool_call_id"] in pending \
                    and message["content"].startswith(SAVED_PREFIX):
                disk.append(pending.pop(message["tool_call_id"]))
    return out


def lanes(recording: Recording, group: str) -> list[Lane]:
    """Day 1 then day 2 of one group; day 2 starts with the disk as day 1 left it."""
    disk: list[str] = []
    return [lane for day in (1, 2) for lane in session_lanes(recording, f"{group}-day{day}", disk)]


def groups(recording: Recording) -> list[str]:
    """The groups (memory designs) with a main session, in recorded order: refresh, frozen, append, after-tools."""
    return list(dict.fromkeys(s["group"] for s in recording.manifest["sessions"] if s["kind"] == "main"))
