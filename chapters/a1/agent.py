"""The agent chapter A1 builds: miniagent's loop (miniagent/loop.py) with four tools and one system prompt.

A1 is about the loop, not the tools (that is A2), so the model is offered the four a coding task
needs: look at the files, read one, change one, run a command. They are miniagent's own tools
(miniagent/tools.py), and a call is checked and dispatched exactly as miniagent does it.
"""
from __future__ import annotations

from miniagent.tools import Toolbox, Workspace


FOUR = ("list_files", "read_file", "edit_file", "run_command")


def four_tools(workspace: Workspace) -> Toolbox:
    """miniagent's Toolbox on ``workspace``, offering only ``FOUR``: a call is checked and dispatched
    exactly as miniagent does it (unknown names, bad JSON and bad arguments become messages)."""
    return Toolbox(workspace, names=FOUR)


class NoTools:
    """A single chat request: nothing the model can call."""

    definitions: list[dict] = []

    def call(self, name: str, arguments: str) -> str:
        return f"error: there are no tools, got {name!r}"
