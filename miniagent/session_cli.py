"""``python -m miniagent session``: look at a session's tree and continue it from any entry.

    python -m miniagent session tree FILE                          entries, branches, compactions, the current leaf
    python -m miniagent session resume FILE --leaf ID TASK [...]   continue the branch that ends at leaf ID
    python -m miniagent session fork FILE --from ID TASK [...]     start a new branch at any entry ID
    python -m miniagent session clone FILE --leaf ID OUT           copy the path root -> ID into a new file

A session file is a tree (see session.py): every entry names its parent, and the conversation is
one path from the root to a leaf. ``resume`` and ``fork`` run a task like ``python -m miniagent``
(the options after TASK are its options); the new entries are appended to the same file below ID,
so nothing already written changes. ``clone`` writes a new file holding only one path.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from dataclasses import dataclass

from . import compaction, injection  # noqa: F401 (they say what their entries mean: session.KINDS)
from .loop import short
from .session import Session, SessionFileError, UnknownEntry

# The course's shipped data (the recordings the book's numbers come from): never appended to.
SHIPPED_DATA = Path(__file__).resolve().parents[1] / "data"


def shipped_data_problem(path: Path | str, entry_id: str | None = None) -> str | None:
    """Why a session must not be continued in the file at ``path``, or None."""
    path = Path(path)
    if SHIPPED_DATA not in path.resolve().parents:
        return None
    leaf = entry_id or "ID"
    return (f"{path} is part of the course's shipped data ({SHIPPED_DATA}); continuing it would append to it. "
            f"Copy the path first and continue the copy: python -m miniagent session clone {path} "
            f"--leaf {leaf} COPY.jsonl, then session resume COPY.jsonl --leaf {leaf} ...")


@dataclass
class Dropped:
    """An incomplete last line, found on load and kept aside, never silently lost."""

    line: int
    offset: int  # byte offset where the torn line starts
    data: bytes

    def __str__(self) -> str:
        return f"dropped an incomplete last line (line {self.line}, {len(self.data)} bytes at byte {self.offset})"


class ContinuedSession(Session):
    """A session file continued later, perhaps after a crash cut off its last write. That last line
    (it starts as every entry does) is dropped on load and reported (``dropped``), and kept aside in
    a ``.torn-OFFSET`` file before the next entry is written, so no entry is glued onto half of one;
    an entry whose newline was lost gets one. Anything else that is no entry is damage, and is said."""

    dropped: Dropped | None = None

    @classmethod
    def open(cls, path: Path | str) -> "ContinuedSession":
        path = Path(path)
        data = path.read_bytes() if path.exists() else b""
        head, newline, last = data.rpartition(b"\n")
        if not last.lstrip().startswith(b"{") or parses(last):
            return super().open(path)
        offset = len(head) + len(newline)
        session = cls(path, cls.read(path, data[:offset]))
        session.dropped = Dropped(data.count(b"\n") + 1, offset, last)
        return session

    def _mend(self) -> str:
        if self.dropped:  # save the torn bytes next to the file, then cut them off
            self.path.with_name(f"{self.path.name}.torn-{self.dropped.offset}").write_bytes(self.dropped.data)
            with open(self.path, "r+b") as f:
                f.truncate(self.dropped.offset)
            self.dropped = None
        if not self.path.exists() or self.path.stat().st_size == 0:
            return ""
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return "\n" if f.read(1) != b"\n" else ""  # the last entry is complete but its newline was lost


def parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


class SessionCommandError(Exception):
    """A session command that cannot run; the message says why."""


def open_existing(path: Path) -> Session:
    """Load a session file that must exist (Session.open alone would start a new one)."""
    if not path.is_file():
        raise SessionCommandError(f"no session file {path}")
    session = ContinuedSession.open(path)
    if session.dropped:
        print(f"note: {path}: {session.dropped}; the complete entries are used", file=sys.stderr)
    return session


def entry(session: Session, entry_id: str) -> dict:
    if entry_id not in session.by_id:
        raise UnknownEntry(f"no entry {entry_id!r} in {session.path}")
    return session.by_id[entry_id]


def children(session: Session) -> dict[str | None, list[dict]]:
    """Each entry id (None for the root) -> its children, in file order."""
    out: dict[str | None, list[dict]] = {}
    for e in session.entries:
        out.setdefault(e["parentId"], []).append(e)
    return out


def leaves(session: Session) -> list[dict]:
    kids = children(session)
    return [e for e in session.entries if e["id"] not in kids]


# -- tree ---------------------------------------------------------------------------------------

def describe(e: dict) -> str:
    """One line for one entry."""
    kind = e.get("type")
    if kind in ("system", "system_refresh"):
        return f"{kind}: {short(e.get('content', ''), 60)}"
    if kind in ("message", "message_refresh"):
        m = e.get("message") or {}
        text = f"{m.get('role', '?')}: {short(m.get('content') or '', 60)}"
        for call in m.get("tool_calls") or []:
            text += f" -> {call['function']['name']}({short(call['function']['arguments'], 40)})"
        return text if kind == "message" else f"message_refresh of {e.get('targetId')}: {text}"
    if kind in ("model_call", "compaction"):
        usage = (e.get("response") or {}).get("usage") or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
        sent = f"prompt {usage.get('prompt_tokens', '?')} tokens, cached {'-' if cached is None else cached}"
        if kind == "model_call":
            return f"model_call round {e.get('round', '?')}: {sent}"
        request = f"; its summary request: {sent}" if "request" in e else ""
        return f"compaction: summary stands in for the messages before {e.get('firstKeptId')}{request}"
    return f"({kind!r}: an entry type miniagent does not know, kept as it is)"


def render_tree(session: Session) -> str:
    """The whole tree as text: a chain is one column; a branch point indents its branches."""
    kids = children(session)
    ends = leaves(session)
    compactions = sum(e["type"] == "compaction" for e in session.entries)
    forks = [i for i, c in kids.items() if i is not None and len(c) > 1]
    lines = [f"{session.path}: {len(session.entries)} entries, {len(ends)} "
             f"{'leaf' if len(ends) == 1 else 'leaves'}, {len(forks)} branch "
             f"{'point' if len(forks) == 1 else 'points'}, {compactions} "
             f"{'compaction' if compactions == 1 else 'compactions'}",
             f"current leaf: {session.leaf} (the last entry written; a plain run continues there)"]
    if dropped := getattr(session, "dropped", None):  # a ContinuedSession's
        lines.append(f"note: {dropped}")

    def chain(start: dict, prefix: str) -> None:
        node = start
        while True:
            below = kids.get(node["id"], [])
            marks = ([" <- current leaf"] if node["id"] == session.leaf else []) + (
                [" (leaf)"] if not below and node["id"] != session.leaf else [])
            lines.append(f"{prefix}{node['id']}  {describe(node)}{''.join(marks)}")
            if len(below) != 1:
                break
            node = below[0]
        for i, child in enumerate(below, start=1):
            last = i == len(below)
            lines.append(f"{prefix}{'└' if last else '├'}─ branch {i} of {len(below)}")
            chain(child, prefix + ("   " if last else "│  "))

    for root in kids.get(None, []):
        chain(root, "")
    return "\n".join(lines)


# -- continuing ---------------------------------------------------------------------------------

def fork_point_problem(session: Session, entry_id: str) -> str | None:
    """Why a new user message cannot follow ``entry_id``, or None if it can.

    A path that ends with tool calls still waiting for their results is not a conversation a
    server accepts: continue from the last tool result instead.
    """
    calls, answered = [], set()
    for e in session.path_to(entry_id):
        m = e.get("message") or {}
        if e["type"] != "message":
            continue
        calls += [c["id"] for c in m.get("tool_calls") or []]
        if m.get("role") == "tool":
            answered.add(m.get("tool_call_id"))
    waiting = [c for c in calls if c not in answered]
    if waiting:
        return (f"the path to {entry_id} ends with tool calls that have no result yet ({', '.join(waiting)}); "
                "continue from the entry that holds the last tool result")
    return None


def continue_from(path: Path, entry_id: str, agent_args: list[str], must_be_leaf: bool, run_agent) -> int:
    """Run the agent's command line, ``run_agent`` (cli.main), with the session continuing below ``entry_id``."""
    session = open_existing(path)
    entry(session, entry_id)
    if problem := shipped_data_problem(path, entry_id):
        raise SessionCommandError(problem)
    if must_be_leaf and children(session).get(entry_id):
        n = len(children(session)[entry_id])
        raise SessionCommandError(f"entry {entry_id} is not a leaf ({n} "
                                  f"{'entry follows' if n == 1 else 'entries follow'} it); "
                                  f"to start a new branch there use: session fork {path} --from {entry_id}")
    if problem := fork_point_problem(session, entry_id):
        raise SessionCommandError(problem)
    taken = [a for a in agent_args if a.split("=", 1)[0] in ("--session", "--fork")]
    if taken:
        raise SessionCommandError(f"{taken[0].split('=', 1)[0]} is set by this command; leave it out")
    return run_agent([*agent_args, "--session", str(path), "--fork", entry_id])


# -- clone --------------------------------------------------------------------------------------

def clone(path: Path, entry_id: str, out: Path) -> int:
    """Write the entries from the root to ``entry_id`` into ``out`` (a new file); return their number."""
    session = open_existing(path)
    entry(session, entry_id)
    if out.exists():
        raise SessionCommandError(f"{out} exists; clone writes a new file and never overwrites one")
    entries = session.path_to(entry_id)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8")
    os.replace(tmp, out)  # all or nothing: a reader never sees half a clone
    return len(entries)


# -- command line -------------------------------------------------------------------------------

def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    p = argparse.ArgumentParser(prog="python -m miniagent session",
                                description="Look at a session file's tree and continue it from any entry.")
    sub = p.add_subparsers(dest="command", required=True)
    tree = sub.add_parser("tree", help="print the tree: entries, branches, compactions, the current leaf")
    tree.add_argument("file", type=Path)
    resume = sub.add_parser("resume", help="continue the branch that ends at a leaf: TASK and agent options follow")
    resume.add_argument("file", type=Path)
    resume.add_argument("--leaf", required=True, metavar="ID")
    fork = sub.add_parser("fork", help="start a new branch at any entry: TASK and agent options follow")
    fork.add_argument("file", type=Path)
    fork.add_argument("--from", dest="entry", required=True, metavar="ID")
    cl = sub.add_parser("clone", help="copy the path from the root to an entry into a new file")
    cl.add_argument("file", type=Path)
    cl.add_argument("--leaf", required=True, metavar="ID")
    cl.add_argument("out", type=Path)
    args, rest = p.parse_known_args(argv)
    if args.command in ("tree", "clone") and rest:
        p.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command in ("resume", "fork") and not rest:
        p.error(f"{args.command} needs the TASK to run (and, after it, any options of python -m miniagent)")
    return args, rest


def main(argv: list[str] | None = None, run_agent=None) -> int:
    """``run_agent``: the agent's command line that resume and fork hand the task to (__main__.py passes
    cli.main; this module does not import it, so the session commands stay an A6 module)."""
    args, rest = parse_args(sys.argv[1:] if argv is None else list(argv))
    if args.command in ("resume", "fork") and run_agent is None:
        raise ValueError("resume and fork need the agent's command line: main(argv, run_agent=cli.main)")
    try:
        if args.command == "tree":
            print(render_tree(open_existing(args.file)))
        elif args.command == "resume":
            return continue_from(args.file, args.leaf, rest, must_be_leaf=True, run_agent=run_agent)
        elif args.command == "fork":
            return continue_from(args.file, args.entry, rest, must_be_leaf=False, run_agent=run_agent)
        else:
            n = clone(args.file, args.leaf, args.out)
            print(f"cloned {n} entries (the path from the root to {args.leaf}) from {args.file} into {args.out}")
    except (SessionCommandError, SessionFileError, UnknownEntry, OSError) as err:
        print(f"miniagent session: error: {err}", file=sys.stderr)
        return 1
    return 0
