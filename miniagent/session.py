"""A session is a tree of entries in an append-only JSONL file.

Every entry has an ``id`` and the ``parentId`` of the entry before it. The conversation the model
sees is one path from the root to a leaf. Forking from an earlier entry just moves the leaf there:
the next entry gets that parent, and nothing already written is changed.

A1's entry types: ``system`` (the prompt at session start), ``system_refresh`` (the prompt was
replaced mid-session), ``message`` (a user, assistant or tool message in OpenAI chat format),
``model_call`` (the exact request and raw response of one call, for replaying it offline) and
``stopped`` (a limit ended the task before the model answered; see loop.py). A later chapter
that writes a type of its own says what it means in ``KINDS`` (compaction.py, injection.py,
children.py). Other types are kept as they are and ignored; one that carries a ``message``, a
``response`` or a ``usage`` no imported module reads is an error, never silently skipped.

The usage ledger: every ``model_call`` keeps the server's whole response, ``usage`` included,
so what a session cost is in its file from the first call on (``usage_ledger`` adds it up).
"""
from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .reply import count, lone_surrogate, reported_tokens, usage_problem


class SessionFileError(ValueError):
    """The session file cannot be read; the message names the file and line."""


def tool_call_problem(call, where: str) -> str | None:
    """What keeps the agent from running one tool call (``where`` names it), or None."""
    if not isinstance(call, dict):
        return f"{where} is not an object"
    if not isinstance(call.get("id"), str):
        return f"{where} has no 'id'"
    function = call.get("function")
    if not isinstance(function, dict):
        return f"{where} has no 'function'"
    for key in ("name", "arguments"):
        if key not in function:
            return f"{where}.function has no {key!r}"
    if not isinstance(function["name"], str):
        return f"{where}.function.name is not a string"
    return None


def message_problem(message) -> str | None:
    """What in a chat message the agent cannot use, or None."""
    if not isinstance(message, dict):
        return "message is not an object"
    if not isinstance(message.get("role"), str):
        return "message has no 'role'"
    calls = message.get("tool_calls")
    if calls is None:
        return None
    if not isinstance(calls, list):
        return "message.tool_calls is not a list"
    for i, call in enumerate(calls):
        if problem := tool_call_problem(call, f"message.tool_calls[{i}]"):
            return problem
    return None


@dataclass(frozen=True)
class Kind:
    """What the session reads in one entry type: the string ``fields`` it must have, whether it
    carries a chat ``message``, whether it holds the ``response`` of a ``call`` the server answered,
    how it changes the chat the model sees (``view(session, chat, entry) -> chat``), and the calls
    it stands for (``usage(entry)``: a usage_ledger total, e.g. a child's whole session)."""

    fields: tuple[str, ...] = ()
    message: bool = False
    call: bool = False
    view: Callable | None = None
    usage: Callable | None = None


# The entry types and what each means; a later chapter adds the types it writes.
KINDS = {"system": Kind(("content",)), "system_refresh": Kind(("content",)), "message": Kind(message=True),
         "model_call": Kind(call=True), "stopped": Kind()}


def kind_of(entry: dict) -> Kind:
    """The entry's Kind; a SessionFileError if it carries what the session reads, of a type unknown here."""
    kind = KINDS.get(entry.get("type"))
    if kind is None and any(key in entry for key in ("message", "response", "usage")):
        raise SessionFileError(f"entry {entry.get('id')!r} is of type {entry.get('type')!r}, which no module "
                               "imported here reads; import the module that writes it")
    return kind or Kind()


def entry_problem(entry: dict) -> str | None:
    """What in one entry the code reading it would trip over, named by field; or None."""
    kind, where = entry.get("type"), f"entry {entry['id']!r}"
    if not isinstance(kind, str):
        return f"{where} has no 'type' (field type is missing)"
    spec = KINDS.get(kind, Kind())
    for field in spec.fields:
        if not isinstance(entry.get(field), str):
            return f"{where}: {field!r} must be a string"
    if spec.message and (problem := message_problem(entry.get("message"))):
        return f"{where}: {problem}"
    return None


def tokens_used(response: dict) -> int:
    """Tokens one call used, as the server reports them: prompt + completion (0 if they cannot be counted)."""
    return reported_tokens(response) or 0


def tokens_spent(entries: list[dict]) -> int | None:
    """What the calls among ``entries`` used, children included (prompt + completion); None if the
    server did not report a countable usage for one of them (then no budget can be kept)."""
    total = 0
    for entry in entries:
        kind = kind_of(entry)
        if kind.usage:
            usage = kind.usage(entry)
            if usage.get("uncounted") or not (count(usage.get("prompt_tokens"))
                                              and count(usage.get("completion_tokens"))):
                return None
            total += usage["prompt_tokens"] + usage["completion_tokens"]
        elif kind.call and "response" in entry:
            tokens = reported_tokens(entry["response"])
            if tokens is None:
                return None
            total += tokens
    return total


def usage_ledger(entries: list[dict]) -> dict:
    """What the calls among ``entries`` used, added up: every call the server answered counts,
    on every branch of the tree (a branch left behind was paid for all the same). An entry that
    stands for other calls (a ``child``, children.py) adds their total. ``uncounted`` (only when
    there are some): calls whose usage the server did not report as whole numbers (counted as 0)."""
    total = {"calls": 0, "prompt_tokens": 0, "cached_tokens": 0, "completion_tokens": 0}
    uncounted = 0
    for entry in entries:
        kind = kind_of(entry)
        if kind.usage:
            usage = kind.usage(entry)
            for key in total:
                total[key] += usage.get(key) if count(usage.get(key)) else 0
            uncounted += usage.get("uncounted") or 0
            continue
        response = entry.get("response") if kind.call else None
        if not isinstance(response, dict):
            continue  # no call (a typed summary) or a call the server refused
        total["calls"] += 1
        if usage_problem(response):
            uncounted += 1
            continue
        usage = response["usage"]
        total["prompt_tokens"] += usage["prompt_tokens"]
        total["completion_tokens"] += usage["completion_tokens"]
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        total["cached_tokens"] += cached if count(cached) else 0
    if uncounted:
        total["uncounted"] = uncounted
    return total


def new_entry_id() -> str:
    """A fresh entry id: 12 hex digits."""
    return uuid.uuid4().hex[:12]


class UnknownEntry(KeyError):
    """No entry with that id in the session."""

    def __str__(self) -> str:
        return self.args[0]  # KeyError's own str() would wrap the message in quotes


class Session:
    def __init__(self, path: Path | str, entries: list[dict] | None = None):
        self.path = Path(path)
        self.entries: list[dict] = entries or []
        self.by_id = {e["id"]: e for e in self.entries}
        self.leaf: str | None = self.entries[-1]["id"] if self.entries else None

    # -- loading -------------------------------------------------------------
    @classmethod
    def open(cls, path: Path | str) -> "Session":
        """Load a session file (or start a new one if it does not exist)."""
        path = Path(path)
        return cls(path, cls.read(path, path.read_bytes())) if path.exists() else cls(path)

    @classmethod
    def read(cls, path: Path, data: bytes) -> list[dict]:
        """The entries of the session file ``path`` whose bytes are ``data``; a SessionFileError names its line."""
        entries, line_of = [], {}  # line_of: entry id -> its line number
        for number, line in enumerate(data.split(b"\n"), start=1):
            if line.strip():
                try:
                    entry = json.loads(line)
                except ValueError as err:
                    raise SessionFileError(f"{path}:{number}: not a valid session entry ({err})") from None
                if problem := cls._problem(entry, line_of):
                    raise SessionFileError(f"{path}:{number}: {problem}")
                entries.append(entry)
                line_of[entry["id"]] = number
        return entries

    @staticmethod
    def _problem(entry, line_of: dict) -> str | None:
        """Why ``entry`` cannot follow the entries read so far (``line_of``), or None."""
        if not isinstance(entry, dict) or "id" not in entry or "parentId" not in entry:
            return "not a valid session entry (entry needs 'id' and 'parentId')"
        if not isinstance(entry["id"], str):
            return f"not a valid session entry (field id should be a string, got {type(entry['id']).__name__})"
        if entry["id"] in line_of:  # a second entry with one id would invent a branch
            return f"field id: entry id {entry['id']!r} is already used on line {line_of[entry['id']]}"
        if entry["parentId"] is not None and entry["parentId"] not in line_of:
            return f"not a valid session entry (parentId {entry['parentId']!r} is not an earlier entry)"
        return entry_problem(entry)

    # -- writing -------------------------------------------------------------
    def append(self, type_: str, *, entry_id: str | None = None, **payload) -> dict:
        """Write one entry after the leaf; ``entry_id``: an id made beforehand (new_entry_id), else a new one."""
        if entry_id in self.by_id:
            raise ValueError(f"entry id {entry_id!r} is already used in {self.path}")
        entry = {"id": entry_id or new_entry_id(), "parentId": self.leaf, "type": type_, **payload}
        if self.entries and not self.path.exists():
            # Writing on would start a file whose first entry names a parent it does not hold.
            raise SessionFileError(f"the session file {self.path} was deleted or moved while the session was "
                                   f"running ({len(self.entries)} entries were in it); nothing more is written")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        if not line.isascii() and lone_surrogate(entry):  # from a server: escaped (\ud800), else no UTF-8
            line = json.dumps(entry) + "\n"
        line = self._mend() + line
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        self.entries.append(entry)
        self.by_id[entry["id"]] = entry
        self.leaf = entry["id"]
        return entry

    def _mend(self) -> str:
        """What the file needs before the next entry: nothing, in a file this session wrote (one
        continued after a crash may need more: session_cli.ContinuedSession)."""
        return ""

    def fork(self, entry_id: str) -> None:
        """Continue from an earlier entry: the next append becomes its child."""
        if entry_id not in self.by_id:
            if not self.entries and not self.path.exists():
                raise UnknownEntry(f"no entry {entry_id!r}: the session file {self.path} does not exist")
            raise UnknownEntry(f"no entry {entry_id!r} in {self.path}")
        self.leaf = entry_id

    # -- reading the tree ----------------------------------------------------
    def path_to(self, entry_id: str | None = None) -> list[dict]:
        """Entries from the root to ``entry_id`` (default: the current leaf)."""
        out, current = [], entry_id or self.leaf
        while current is not None:
            entry = self.by_id[current]
            out.append(entry)
            current = entry["parentId"]
        return out[::-1]

    def visible(self, entry_id: str | None = None) -> tuple[str | None, list[tuple[str, dict]]]:
        """What the model sees on the path: the latest system text, and the chat messages as
        (entry id, message) pairs, with what every later entry type changes applied (its ``view``)."""
        system, chat = None, []
        for entry in self.path_to(entry_id):
            kind = kind_of(entry)
            if entry["type"] in ("system", "system_refresh"):
                system = entry["content"]
            elif entry["type"] == "message":
                chat.append((entry["id"], entry["message"]))
            elif kind.view:
                chat = kind.view(self, chat, entry)
        return system, chat

    def messages(self, entry_id: str | None = None) -> list[dict]:
        """The chat messages the model sees: the latest system text first, then the rest."""
        system, chat = self.visible(entry_id)
        return ([{"role": "system", "content": system}] if system is not None else []) + [m for _, m in chat]
