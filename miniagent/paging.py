"""Paging (A2·3, opt-in): a big tool result comes back one page at a time, with a pointer to the rest.

Without it, ``read_file`` and ``run_command`` return up to ``OUTPUT_LIMIT`` characters and cut the
middle of anything longer (tools.py ``cap``): the model gets both ends, never the middle, and has no
way to ask for it. With ``with_paging(toolbox)``:

- ``read_file`` takes an optional ``start`` line and returns at most ``PAGE_LINES`` lines and
  ``PAGE_CHARS`` characters from there, ending with where the rest is:
  ``[lines 1-40 of 900; read_file with start=41 for more]``;
- ``run_command``'s output, when longer than a page, is saved whole (as much of it as the
  workspace keeps: confined.py keeps ``KEEP_BYTES`` at each end) into ``OUTPUT_DIR`` inside the workspace, and the
  model gets its first page and the saved file's path, which ``read_file`` pages through.

Both are the same definitions miniagent always offers, except ``read_file``'s extra ``start``;
the toolbox's other tools do not change. A session started without paging sends exactly what it
always sent: nothing here runs unless ``with_paging`` is called.
"""
from __future__ import annotations

import copy
import sys

from .tools import Toolbox, ToolError, Workspace

PAGE_LINES = 40       # lines of a page
PAGE_CHARS = 2000     # characters of a page, at most (a page ends early at a very long line)
OUTPUT_DIR = ".outputs"  # inside the workspace, so read_file can page through a saved output

READ_DEFINITION = {"type": "function", "function": {
    "name": "read_file",
    "description": f"Read a text file of the repository, {PAGE_LINES} lines at a time. A longer file ends "
                   "with a note saying which line to start from for the next page.",
    "parameters": {"type": "object", "properties": {
        "path": {"type": "string", "description": "File path relative to the repository root"},
        "start": {"type": "integer", "description": "First line to read, counting from 1 (default 1)"}},
        "required": ["path"]}}}


def page(text: str, start: int = 1, lines: int = PAGE_LINES, chars: int = PAGE_CHARS) -> tuple[str, int | None]:
    """The page of ``text`` from line ``start`` and the first line after it (None: the text ends here)."""
    all_lines = text.splitlines(keepends=True)
    if start < 1 or (start > len(all_lines) and not (start == 1 and not all_lines)):
        raise ToolError(f"start must be between 1 and {max(len(all_lines), 1)}, not {start}")
    shown, size, end = [], 0, start - 1
    for line in all_lines[start - 1:start - 1 + lines]:
        if shown and size + len(line) > chars:
            break
        shown.append(line[:chars])  # a single line longer than a page is cut to the page
        size += len(line)
        end += 1
    return "".join(shown), (end + 1 if end < len(all_lines) else None)


def paged(text: str, path: str, start: int = 1) -> str:
    """A page of ``text`` (the file at ``path``) and, if more follows, where it is."""
    body, following = page(text, start)
    if following is None:
        return body
    total = len(text.splitlines())
    return (f"{body.rstrip(chr(10))}\n[lines {start}-{following - 1} of {total}; "
            f"read_file with path {path!r} and start={following} for more]")


class Pager:
    """The two paged tools on one workspace; ``saved`` counts the outputs written to ``OUTPUT_DIR``."""

    def __init__(self, workspace: Workspace):
        self.workspace, self.saved = workspace, 0

    def read_file(self, path: str, start: int = 1) -> str:
        return paged(self.workspace.read_text(path), path, start)

    def run_command(self, command: str) -> str:
        # The same workspace, sandbox included, with a buffer that keeps the whole output.
        full = copy.copy(self.workspace)
        full.output_limit = sys.maxsize  # whatever the workspace kept, uncut
        output = full.run_command(command)
        body, following = page(output)
        if following is None:
            return output
        total = len(output.splitlines())
        try:
            rel = self.save(output)
        except (OSError, ToolError) as err:  # the command ran: the model gets its first page and why
            why = self.workspace.hide_root(err) if isinstance(err, OSError) else str(err)  # the rest is not kept
            return (f"{body.rstrip(chr(10))}\n[lines 1-{following - 1} of {total}; the command ran, but the rest "
                    f"of its output could not be saved to page through: {why}]")
        return (f"{body.rstrip(chr(10))}\n[lines 1-{following - 1} of {total}; the whole output is saved in "
                f"{rel}: read_file with path {rel!r} and start={following} for more]")

    def save(self, output: str) -> str:
        """Write ``output`` to a new file in ``OUTPUT_DIR`` and return its path: the first
        ``command-N.txt`` that does not exist yet (opened with "x", so an earlier session's saved
        output, which that session was told is kept, is never overwritten)."""
        folder = self.workspace.resolve(OUTPUT_DIR)  # a link to outside the workspace: a ToolError
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(f"{OUTPUT_DIR} is a file, not a folder; move it away to keep long outputs")
        folder.mkdir(exist_ok=True)
        while True:
            self.saved += 1
            rel = f"{OUTPUT_DIR}/command-{self.saved}.txt"
            try:
                with open(folder / f"command-{self.saved}.txt", "x", encoding="utf-8") as file:
                    file.write(output)
                return rel
            except FileExistsError:
                continue


# What the model is told (Toolbox.call checks the arguments against it): read_file gains ``start``,
# run_command's definition stays miniagent's own.
Pager.read_file.definition = READ_DEFINITION
Pager.run_command.definition = Workspace.run_command.definition


def with_paging(toolbox: Toolbox) -> Toolbox:
    """``toolbox`` with its ``read_file`` and ``run_command`` paged (the same object, changed in place)."""
    pager = Pager(toolbox.workspace)
    paged_tools = {"read_file": pager.read_file, "run_command": pager.run_command}
    toolbox.handlers = {name: paged_tools.get(name, handler)
                        for name, handler in toolbox.handlers.items()}
    toolbox.definitions = [handler.definition for handler in toolbox.handlers.values()]
    return toolbox

