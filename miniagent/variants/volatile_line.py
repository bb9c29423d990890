"""Lesson A4·2's designs: where a line that changes on its own goes in the system prompt.

Many agents tell the model what time it is and what the working tree looks like. Both change
while the agent works: the clock every minute, the file list whenever a tool writes a file. This
step rebuilds the system prompt before every call with such a block, in one of three shapes:

    shape       the block holds                                  where
    clock-top   the time to the minute and every file with its   before the base prompt
                size (a directory listing)
    clock-end   the same                                         after the memory block (last)
    date-only   the date only (no time, no listing)              after the memory block (last)

``date-only`` is the shape Hermes Agent uses: a date changes once a day, so the system prompt stays
the same for the whole day; the model asks the tools for the time or the files when it needs them.

The clock is handed in (``now``), so a recorder can replay a day at the times it chooses; the
agent itself would pass ``lambda: datetime.now(timezone.utc)``.
"""
from __future__ import annotations

from datetime import datetime
from typing import Callable

from ..session import Session
from ..system_message import sync_system_prompt
from ..tools import Workspace

SHAPES = ("clock-top", "clock-end", "date-only")
ENVIRONMENT_HEADER = "# Environment"
NOT_LISTED = {".git", "__pycache__"}  # version control and Python's byte-code: not the repository's files


def listing(workspace: Workspace) -> str:
    """Every file of the repository with its size in bytes, one per line, sorted by path."""
    lines = []
    for path in sorted(workspace.root.rglob("*")):
        rel = path.relative_to(workspace.root)
        if NOT_LISTED & set(rel.parts) or not path.is_file():
            continue
        lines.append(f"{rel.as_posix()} {path.stat().st_size}")
    return "\n".join(lines) or "(no files)"


def environment(shape: str, now: datetime, workspace: Workspace) -> str:
    """The block a shape puts into the system prompt at time ``now``."""
    if shape == "date-only":
        return f"{ENVIRONMENT_HEADER}\n\nDate: {now:%A, %B} {now.day}, {now:%Y}"
    return f"{ENVIRONMENT_HEADER}\n\nTime: {now:%Y-%m-%d %H:%M} UTC\nFiles (path, bytes):\n{listing(workspace)}"


class VolatileLine:
    """A step: the system prompt ``base`` with the environment block, rebuilt before every call."""

    def __init__(self, shape: str, base: str, workspace: Workspace, now: Callable[[], datetime]):
        if shape not in SHAPES:
            raise ValueError(f"unknown shape {shape!r}; choose one of {', '.join(SHAPES)}")
        self.shape, self.base, self.workspace, self.now = shape, base, workspace, now

    def text(self) -> str:
        block = environment(self.shape, self.now(), self.workspace)  # reads the clock once
        return f"{block}\n\n{self.base}" if self.shape == "clock-top" else f"{self.base}\n\n{block}"

    def start(self, session: Session, task: str) -> str:
        return task  # the system prompt is written before the first call, at that call's time

    def before_call(self, session: Session, round_no: int, log: Callable[[str], None]) -> None:
        if sync_system_prompt(session, self.text()) and round_no > 1:
            log(f"round {round_no}: the environment block changed; system prompt rebuilt")
