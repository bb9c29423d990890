"""The agent chapter A1 builds: miniagent's loop (miniagent/loop.py) with four tools and one system prompt.

A1 is about the loop, not the tools (that is A2), so the model is offered the four a coding task
needs: look at the files, read one, change one, run a command. They are miniagent's own tools
(miniagent/tools.py), and a call is checked and dispatched exactly as miniagent does it.
"""
from __future__ import annotations

from miniagent.tools import Toolbox, Workspace


class FourTools:
    """``list_files``, ``read_file``, ``edit_file`` and ``run_command`` of one workspace."""

    call = Toolbox.call  # the same dispatch: unknown names, bad JSON and bad arguments become messages

    def __init__(self, workspace: Workspace):
        handlers = (workspace.list_files, workspace.read_file, workspace.edit_file, workspace.run_command)
        self.handlers = {h.__name__: h for h in handlers}
        self.definitions = [h.definition for h in handlers]


class NoTools:
    """A single chat request: nothing the model can call."""

    definitions: list[dict] = []

    def call(self, name: str, arguments: str) -> str:
        return f"error: there are no tools, got {name!r}"
