"""Memory the agent writes itself: MEMORY.md, on disk at once.

MEMORY.md lives outside the repository (it belongs to the agent, not to the
project). Notes are appended by the ``remember`` tool and are on disk at once.
Where the requests carry the memory, and when a note written mid-session gets
there, is a separate choice, the ``mode``: see injection.py.
"""
from __future__ import annotations

import fcntl
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .tools import ToolError, tool

# Hermes Agent's default budget for its MEMORY.md, in characters:
# NousResearch/hermes-agent@88d1d6206f399c134d1f4c0b7db27733aaa3c50c:hermes_cli/config.py:2045-2068
MEMORY_CHAR_LIMIT = 2200
# A line holding only "§" separates entries, as in Hermes (tools/memory_tool.py:59 at the same commit).
# Notes may span lines; a note that itself contains such a line is refused.
ENTRY_DELIMITER = "\n§\n"


class NoteRefused(ToolError, ValueError):
    """A note was not saved; the message says why. The file is unchanged."""


class MemoryFileError(ToolError, ValueError):
    """MEMORY.md cannot be read; the message names the file. Nothing is written to it."""


def split_entries(text: str) -> list[str]:
    """The entries of a memory text (the file's content, or the memory block of a prompt)."""
    text = text.strip("\n")
    return [e for e in text.split(ENTRY_DELIMITER) if e.strip()] if text else []


class MemoryStore:
    def __init__(self, path: Path | str, char_limit: int = MEMORY_CHAR_LIMIT):
        self.path = Path(path)
        self.char_limit = char_limit

    @tool("Save a note for later sessions (kept outside the repository).",
          note="One short fact later sessions will need")
    def remember(self, note: str) -> str:
        """The remember tool (Toolbox offers it when it is given a memory)."""
        return self.add(note)

    def entries(self) -> list[str]:
        if not self.path.exists():
            return []
        try:
            return split_entries(self.path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as err:
            # Refuse rather than guess: rewriting a file we cannot read would lose its notes.
            raise MemoryFileError(f"{self.path}: not UTF-8 text (byte {err.start}: {err.reason}); fix or move "
                                  "the file (miniagent never writes to a memory file it cannot read)") from None

    def text(self) -> str:
        """The memory exactly as it is injected into the prompt."""
        return ENTRY_DELIMITER.join(self.entries())

    def add(self, note: str) -> str:
        """Append one note and return the message the model sees."""
        note = note.strip()
        if not note:
            raise NoteRefused("The note is empty; nothing was saved.")
        if ENTRY_DELIMITER.strip() in note.splitlines():
            raise NoteRefused("A note may not contain a line holding only '§' (it separates entries).")
        try:
            note.encode("utf-8")
        except UnicodeEncodeError as err:
            raise NoteRefused(f"The note cannot be saved as UTF-8 (character {err.start}: "
                              f"{note[err.start:err.end]!r}, {err.reason}). Nothing was saved.") from None
        with self._locked():
            # Re-read under the lock: another process may have written since we last looked.
            entries = self.entries()
            if note in entries:
                return f"Already in memory; nothing changed ({len(self.text())}/{self.char_limit} chars)."
            new_text = ENTRY_DELIMITER.join(entries + [note])
            if len(new_text) > self.char_limit:
                used = len(ENTRY_DELIMITER.join(entries))
                raise NoteRefused(
                    f"Memory is full: this note has {len(note)} chars, memory uses {used}/{self.char_limit}, "
                    f"and saving would make it {len(new_text)}. Nothing was saved. "
                    "Shorten the note or keep only what later sessions really need."
                )
            self._write_atomically(new_text + "\n")
        return f"Saved to MEMORY.md ({len(new_text)}/{self.char_limit} chars)."

    @contextmanager
    def _locked(self):
        # One lock file beside MEMORY.md serialises writers across processes.
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _write_atomically(self, text: str) -> None:
        # Write a temp file in the same directory, fsync it, then rename over the
        # old file: a reader sees the old or the new memory, never half of it.
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".MEMORY.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        dir_fd = os.open(self.path.parent, os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)  # make the rename itself durable
        finally:
            os.close(dir_fd)
