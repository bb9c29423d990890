"""The agent's tools, all confined to one workspace directory.

File tools refuse absolute paths, ``..`` and symlinks that lead outside the
workspace. ``run_command`` runs in the workspace with a timeout and an output
cap; it is not a sandbox (a command can still name other paths), which is why
miniagent is meant for throwaway copies of a repository.

Each tool's definition (what the model is told) sits on its handler, in the
``@tool`` line above it. ``Toolbox.call`` checks the model's arguments against
that definition's JSON schema before the handler runs.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from .memory import MemoryStore, NoteRefused

OUTPUT_LIMIT = 8000  # characters of tool output the model gets back
COMMAND_TIMEOUT = 30.0  # seconds


class ToolError(Exception):
    """A tool call that cannot be carried out; the model sees the message."""


def tool(description: str, **params: str):
    """Attach an OpenAI tool definition to the handler below it; every parameter is a required string."""
    def attach(handler):
        properties = {p: {"type": "string", "description": d} for p, d in params.items()}
        handler.definition = {"type": "function", "function": {
            "name": handler.__name__, "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(params)}}}
        return handler
    return attach


def json_type(value) -> str:
    """The JSON Schema type name of a parsed JSON value."""
    # bool first: True is an int in Python, but not a number in JSON.
    for name, python_type in (("boolean", bool), ("integer", int), ("number", float), ("string", str),
                              ("array", list), ("object", dict)):
        if isinstance(value, python_type):
            return name
    return "null"


def schema_problem(args, schema: dict) -> str | None:
    """What is wrong with ``args`` for an object ``schema``, or None if nothing is.

    Checks the JSON Schema subset tool definitions use: required keys, each
    property's ``type`` and ``additionalProperties: false``.
    """
    if not isinstance(args, dict):
        return "arguments must be a JSON object"
    properties = schema.get("properties", {})
    for key in schema.get("required", []):
        if key not in args:
            return f"missing required argument {key!r}"
    for key, value in args.items():
        if key not in properties:
            if schema.get("additionalProperties") is False:
                return f"unknown argument {key!r}; expected: {', '.join(properties)}"
            continue
        expected, actual = properties[key].get("type"), json_type(value)
        if expected and actual != expected and (expected, actual) != ("number", "integer"):
            article = "an" if expected[0] in "aeio" else "a"
            return f"{key!r} must be {article} {expected}, not {actual}"
    return None


def cap(text: str, limit: int = OUTPUT_LIMIT) -> str:
    """Keep the head and the tail of long output; say how much was cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}"


class Workspace:
    def __init__(self, root: Path | str, command_timeout: float = COMMAND_TIMEOUT):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ToolError(f"workspace {self.root} is not a directory")
        self.command_timeout = command_timeout

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` inside the workspace, or a ToolError."""
        if not isinstance(path, str) or not path.strip():
            raise ToolError("a path is required")
        given = Path(path)
        if given.is_absolute():
            raise ToolError(f"absolute paths are not allowed: {path!r}; use a path relative to the repository root")
        if ".." in given.parts:
            raise ToolError(f"'..' is not allowed in paths: {path!r}")
        real = (self.root / given).resolve()  # follows symlinks
        if real != self.root and self.root not in real.parents:
            raise ToolError(f"{path!r} leads outside the workspace (through a symlink)")
        return real

    @tool("List files under a directory of the repository.",
          path="Directory relative to the repository root, e.g. '.'")
    def list_files(self, path: str = ".") -> str:
        directory = self.resolve(path)
        if not directory.is_dir():
            raise ToolError(f"not a directory: {path!r}")
        names = []
        for p in sorted(directory.rglob("*")):
            rel = p.relative_to(self.root)
            if ".git" in rel.parts or not p.is_file():
                continue
            names.append(str(rel))
        return cap("\n".join(names) or "(no files)")

    @tool("Read a text file of the repository.", path="File path relative to the repository root")
    def read_file(self, path: str) -> str:
        file = self.resolve(path)
        if not file.is_file():
            raise ToolError(f"no such file: {path!r}")
        return cap(file.read_text(encoding="utf-8", errors="replace"))

    @tool("Create or overwrite a file.", path="File path relative to the repository root",
          content="The complete new file content")
    def write_file(self, path: str, content: str) -> str:
        file = self.resolve(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(content, encoding="utf-8")
        return f"Wrote {len(content)} characters to {path}."

    @tool("Replace one exact, unique piece of text in a file.",
          path="File path relative to the repository root", old="Text to replace (must occur exactly once)",
          new="Replacement text")
    def edit_file(self, path: str, old: str, new: str) -> str:
        file = self.resolve(path)
        if not file.is_file():
            raise ToolError(f"no such file: {path!r}")
        text = file.read_text(encoding="utf-8")
        count = text.count(old) if old else 0
        if count != 1:
            raise ToolError(f"the text to replace occurs {count} times in {path}; it must occur exactly once")
        file.write_text(text.replace(old, new), encoding="utf-8")
        return f"Edited {path}."

    @tool("Run a shell command in the repository root and return its output.", command="The shell command")
    def run_command(self, command: str) -> str:
        # A new process group lets us kill the command and everything it started.
        proc = subprocess.Popen(command, shell=True, cwd=self.root, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
        try:
            output, _ = proc.communicate(timeout=self.command_timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            return cap(f"{output}\n[timed out after {self.command_timeout:g} s; the command was killed]")
        return cap(f"{output}\n[exit code {proc.returncode}]")


class Toolbox:
    """Dispatches the model's tool calls; every failure becomes a message, not a crash."""

    def __init__(self, workspace: Workspace, memory: MemoryStore, skills=None):
        self.workspace, self.memory = workspace, memory
        w = workspace
        # In the order the model sees them: recorded requests depend on this order.
        self.handlers = {h.__name__: h for h in (w.list_files, w.read_file, w.write_file, w.edit_file,
                                                  w.run_command, self.remember)}
        if skills is not None:  # a skills.SkillSet: its read_skill tool comes last
            self.handlers["read_skill"] = skills.read_skill
        self.definitions = [h.definition for h in self.handlers.values()]

    @tool("Save a note for later sessions (kept outside the repository).",
          note="One short fact later sessions will need")
    def remember(self, note: str) -> str:
        return self.memory.add(note)

    def call(self, name: str, arguments: str | dict) -> str:
        handler = self.handlers.get(name)
        if handler is None:
            return f"error: unknown tool {name!r}; available: {', '.join(sorted(self.handlers))}"
        try:
            args = json.loads(arguments or "{}") if isinstance(arguments, str) else arguments
        except json.JSONDecodeError as err:
            return f"error: arguments are not valid JSON ({err})"
        # Check before the handler runs: a handler may assume its arguments have the declared types.
        problem = schema_problem(args, handler.definition["function"]["parameters"])
        if problem:
            return f"error: bad arguments for {name}: {problem}"
        try:
            return handler(**args)
        except TypeError as err:  # an extra argument the schema allows but the handler does not take
            return f"error: bad arguments for {name}: {err}"
        except (ToolError, NoteRefused, OSError) as err:
            return f"error: {err}"
