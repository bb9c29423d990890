"""Where the memory sits in each request, and when a note written mid-session gets there.

``remember`` puts a note on disk at once (memory.py). How the requests carry the memory is a
design of its own, a step the loop runs (loop.py): before the task enters the conversation it
may rewrite the task's message (``start``), and before every model call it sets the system
prompt and adds or replaces messages (``before_call``). Those are the moments a memory write
can change what the model sees, and where the prompt prefix may break: a changed system text
is a ``system_refresh`` entry, an added message a ``message`` entry, a replaced one a
``message_refresh`` (session.py).

miniagent's own design is ``frozen``: the system prompt keeps the memory as it was at session
start, and a note written this session reaches the requests of the next session, so the prefix
never breaks mid-session. The other designs the CLI's ``--mode`` offers are lesson variants
(variants/, registered in modes.py).

Every design answers the same questions; a new one overrides what differs:

- ``current()``: the system prompt for the next call (calling the object gives its text);
- ``user_message(text, chat)``: a user message as it enters the conversation;
- ``updates(chat)``: messages to add at the end or to replace, before the next call;
- ``after_compaction()``: re-read AGENTS.md, since a compaction changed the prefix anyway.

A compaction (compaction.py) is a step of its own that runs before this one; the design sees
the new ``compaction`` entry in the session and re-reads AGENTS.md then.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from .agents_md import read_agents_md
from .memory import MemoryStore
from .prompt import SystemPrompt
from .session import KINDS, Kind, Session, SessionFileError
from .loop import short
from .system_message import sync_system_prompt

Chat = list[tuple[str, dict]]  # (entry id, message) pairs, as Session.visible() gives them
Update = tuple[str | None, dict]  # (None: add at the end | entry id of the message to replace, message)


class MemoryInjection:
    """What every design answers, and the step the loop runs; Frozen below and the variants are the designs."""

    mode = ""

    # The skills block (e.g. SkillSet.index), built again for every call, so a skill written
    # mid-session is in the next request; and where it sits (prompt.py). for_mode sets them.
    skills: Callable[[], str] | None = None
    skills_at = "stable"

    def __init__(self, base: str, agents_md: str, memory: MemoryStore, workspace: Path | None = None):
        self.base, self.agents_md, self.memory = base.strip(), agents_md.strip(), memory
        self.workspace = workspace  # where AGENTS.md is re-read after a compaction (None: keep the text)
        self.snapshot = memory.text()  # the memory at session start
        self.compaction_seen: str | None = None  # the compaction whose AGENTS.md this design has

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

    # -- the step the loop runs (loop.Step) ------------------------------------------------------
    def start(self, session: Session, task: str) -> str:
        """The task's message first: a design that picks notes for it (select) needs it for the prompt."""
        self.compaction_seen = last_compaction(session)
        text = self.user_message(task, session.visible()[1])
        sync_system_prompt(session, self())
        return text

    def before_call(self, session: Session, round_no: int, log: Callable[[str], None]) -> None:
        if (compaction := last_compaction(session)) != self.compaction_seen:
            self.compaction_seen = compaction
            self.after_compaction()  # the prefix is new anyway: re-read AGENTS.md
        if sync_system_prompt(session, self()):
            log(f"round {round_no}: system prompt refreshed from disk")
        for change in sync_messages(session, self.updates(session.visible()[1])):
            log(f"round {round_no}: {change}")


def last_compaction(session: Session) -> str | None:
    """The id of the latest ``compaction`` entry on the session's path (None: not compacted)."""
    return next((e["id"] for e in reversed(session.path_to()) if e["type"] == "compaction"), None)


def sync_messages(session: Session, updates: list[Update]) -> list[str]:
    """Add (target None) or replace (target: the message's entry id) messages; say what changed."""
    done = []
    for target, message in updates:
        if target is None:
            session.append("message", message=message)
            done.append(f"added a {message['role']} message: {short(message['content'])}")
        else:
            session.append("message_refresh", targetId=target, message=message)
            done.append(f"replaced message {target}: {short(message['content'])}")
    return done


class Frozen(MemoryInjection):
    """The system prompt keeps the memory of session start; new notes wait for the next session."""

    mode = "frozen"

    def current(self) -> SystemPrompt:
        return self.prompt(self.snapshot)


def refreshed(session: Session, chat: Chat, entry: dict) -> Chat:
    """What a ``message_refresh`` entry does to the chat the model sees: from here on, the message
    of entry ``targetId`` reads ``message`` (mode after-tools rewrites the first user message so)."""
    ids = [i for i, _ in chat]
    if entry.get("targetId") not in ids:
        raise SessionFileError(f"{session.path}: message_refresh {entry['id']} replaces "
                               f"{entry.get('targetId')!r}, which is not a message on its path")
    chat[ids.index(entry["targetId"])] = (entry["targetId"], entry["message"])
    return chat


KINDS["message_refresh"] = Kind(("targetId",), message=True, view=refreshed)  # the entry sync_messages writes
