"""The edit guard (A2·3, opt-in): an edit applies only to the file the model has seen.

``edit_file`` looks for its old text in the file as it is now. If the file changed after the model
read it (the user saved it, a formatter ran, a command the model started rewrote it), the old text
may still be found once, and the edit lands in a file the model has not seen; or it is gone, and
the model reads only that it "occurs 0 times". ``with_edit_guard(toolbox)`` changes three things:

- ``read_file`` remembers a hash of the file's bytes each time it reads it;
- ``edit_file`` and ``write_file`` on an existing file refuse when the file is not the one the model
  last read (or it never read it), and say what to do: read it again;
- ``edit_file``'s two other failures say how to fix the call: old text not found (copy it exactly,
  whitespace and line breaks included) or found several times (add lines around it).

A refused call changes nothing on disk. The definitions the model is told do not change.
"""
from __future__ import annotations

import hashlib
import inspect

from .tools import Toolbox, ToolError, Workspace


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class EditGuard:
    """What the model last read, per path, and the guarded tools."""

    def __init__(self, workspace: Workspace, read_file):
        self.workspace, self._read = workspace, read_file
        self.seen: dict[str, str] = {}  # resolved path -> sha256 of the bytes when last read

    def read_file(self, **args) -> str:
        result = self._read(**args)  # a failed read raises: nothing is remembered
        file = self.workspace.resolve(args["path"])
        self.seen[str(file)] = digest(file.read_bytes())
        return result

    def check_seen(self, path: str) -> None:
        """Refuse a change to an existing file the model has not read as it is now."""
        file = self.workspace.resolve(path)
        if not file.is_file():
            return  # a new file: nothing to have seen
        last = self.seen.get(str(file))
        if last is None:
            raise ToolError(f"{path} has not been read in this session; read it first, then change it")
        if digest(file.read_bytes()) != last:
            raise ToolError(f"{path} changed since you last read it; read it again before changing it")

    def edit_file(self, path: str, old: str, new: str) -> str:
        self.check_seen(path)
        file = self.workspace.resolve(path)
        if file.is_file():
            text = file.read_text(encoding="utf-8", errors="replace")
            count = text.count(old) if old else 0
            if count == 0:
                raise ToolError(f"the old text was not found in {path}; it must match the file exactly, "
                                "whitespace and line breaks included: copy it from what read_file returned")
            if count > 1:
                raise ToolError(f"the old text occurs {count} times in {path}; add the lines around it "
                                "so that it occurs exactly once")
        result = self.workspace.edit_file(path, old, new)
        self.seen[str(file)] = digest(file.read_bytes())  # the model knows what it wrote
        return result

    def write_file(self, path: str, content: str) -> str:
        self.check_seen(path)
        result = self.workspace.write_file(path, content)
        self.seen[str(self.workspace.resolve(path))] = digest(self.workspace.resolve(path).read_bytes())
        return result


def with_edit_guard(toolbox: Toolbox) -> Toolbox:
    """``toolbox`` with read_file, edit_file and write_file guarded (the same object, changed in place).

    Call it after ``paging.with_paging`` if both are wanted: the guard wraps whatever read_file is there.
    """
    guard = EditGuard(toolbox.workspace, toolbox.handlers["read_file"])
    originals = {name: toolbox.handlers[name] for name in ("read_file", "edit_file", "write_file")}

    def guarded(name):
        method = getattr(guard, name)

        def handler(**args):
            return method(**args)
        handler.definition = originals[name].definition  # the model is told what it was always told
        handler.__name__, handler.__qualname__ = name, originals[name].__qualname__
        # Toolbox.call checks the arguments against this: the parameters of the tool it guards.
        handler.__signature__ = inspect.signature(originals[name])
        return handler

    toolbox.handlers = {name: guarded(name) if name in originals else handler
                        for name, handler in toolbox.handlers.items()}
    toolbox.definitions = [handler.definition for handler in toolbox.handlers.values()]
    toolbox.edit_guard = guard
    return toolbox
