"""The agent's tools, all confined to one workspace directory.

File tools refuse absolute paths, ``..`` and symlinks that lead outside the workspace. A file is
written all or nothing: the text is encoded first, then written to a temporary file that replaces
the old one, so a failed write never leaves a half-written or empty file. ``run_command`` runs in
the workspace with a timeout, in its own process group (killed whole at the timeout), its output
capped; A3·1 shows what still gets out (confined.py closes it).

Each tool's definition (what the model is told) sits on its handler, in the ``@tool`` line above
it. ``Toolbox.call`` checks the model's arguments against that definition's JSON schema before the
handler runs. Later chapters bring tools of their own, written with the same ``@tool``, on the
objects they work on; none of them is imported here.
"""
from __future__ import annotations

import inspect
import json
import math
import os
import signal
import subprocess
import tempfile
from pathlib import Path

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


def check_timeout(seconds) -> float:
    """``seconds`` if it is a usable timeout (a positive, finite number), else a ToolError."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
            or not math.isfinite(seconds) or seconds <= 0:
        raise ToolError(f"the command timeout must be a positive number of seconds, not {seconds!r}")
    return float(seconds)


def encode(text: str, path: str) -> bytes:
    """``text`` as UTF-8, or a ToolError before anything is written."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ToolError(f"the text cannot be written as UTF-8 (character {err.start}: "
                        f"{text[err.start:err.end]!r}, {err.reason}); {path} is unchanged") from None


def replace_file(file: Path, data: bytes) -> None:
    """Write ``data`` to ``file`` all or nothing: a temporary file in the same directory, then a rename."""
    fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        # mkstemp makes the file private (0600): give it the old file's mode, or a new file's usual one.
        if file.exists():
            mode = file.stat().st_mode & 0o7777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, file)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def decode(data: bytes) -> str:
    """Output bytes as text, as a text-mode pipe gives them (UTF-8, universal newlines)."""
    text = data.decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


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
        self.command_timeout = check_timeout(command_timeout)
        self.output_limit = OUTPUT_LIMIT  # characters of a command's output returned (paging.py raises it)

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` inside the workspace, or a ToolError."""
        if not isinstance(path, str) or not path.strip():
            raise ToolError("a path is required")
        if "\0" in path:  # the operating system cannot take it
            raise ToolError(f"a path may not contain a NUL byte: {path!r}")
        given = Path(path)
        if given.is_absolute():
            raise ToolError(f"absolute paths are not allowed: {path!r}; use a path relative to the repository root")
        if ".." in given.parts:
            raise ToolError(f"'..' is not allowed in paths: {path!r}")
        try:
            real = (self.root / given).resolve()  # follows symlinks
        except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a loop, later ones OSError
            raise ToolError(f"{path!r} is a symlink loop (its links lead back to themselves); it cannot be "
                            "opened") from None
        if real != self.root and self.root not in real.parents:
            raise ToolError(f"{path!r} leads outside the workspace (through a symlink)")
        return real

    def hide_root(self, err: OSError) -> str:
        """An operating system error as the model sees it: paths relative to the workspace, not this machine's."""
        return str(err).replace(f"{self.root}{os.sep}", "").replace(str(self.root), ".")

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
        return cap(self.read_text(path))

    def read_text(self, path: str) -> str:
        """The text of the file at ``path``; a ToolError if it is missing or not UTF-8 (never a guess
        with replacement characters the model would take for the file's content)."""
        file = self.resolve(path)
        if not file.is_file():
            raise ToolError(f"no such file: {path!r}")
        try:
            return file.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise ToolError(f"{path} is not UTF-8 text (byte {err.start}: {err.reason}); the file tools "
                            "(read_file, edit_file) take text files only") from None

    @tool("Create or overwrite a file.", path="File path relative to the repository root",
          content="The complete new file content")
    def write_file(self, path: str, content: str) -> str:
        file = self.resolve(path)
        data = encode(content, path)  # before anything on disk changes
        file.parent.mkdir(parents=True, exist_ok=True)
        replace_file(file, data)
        return f"Wrote {len(content)} characters to {path}."

    @tool("Replace one exact, unique piece of text in a file.",
          path="File path relative to the repository root", old="Text to replace (must occur exactly once)",
          new="Replacement text")
    def edit_file(self, path: str, old: str, new: str) -> str:
        file, text = self.resolve(path), self.read_text(path)
        count = text.count(old) if old else 0
        if count != 1:
            raise ToolError(f"the text to replace occurs {count} times in {path}; it must occur exactly once")
        replace_file(file, encode(text.replace(old, new), path))
        return f"Edited {path}."

    @tool("Run a shell command in the repository root and return its output.", command="The shell command")
    def run_command(self, command: str) -> str:
        # Its own process group: at the timeout we kill the command and all it started.
        proc = subprocess.Popen(command, shell=True, cwd=self.root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            output, _ = proc.communicate(timeout=self.command_timeout)
            suffix = f"\n[exit code {proc.returncode}]"
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:  # nothing of the group is left
                pass
            output, _ = proc.communicate()  # waits for the pipe's end: A3·1 shows what can hold it
            suffix = f"\n[timed out after {self.command_timeout:g} s; the command was killed]"
        return cap(decode(output) + suffix, self.output_limit)


class Toolbox:
    """Dispatches the model's tool calls; every failure becomes a message, not a crash.

    ``memory`` (A6·2) and ``skills`` (A6·3) each bring one tool, after the workspace's five;
    ``approval`` (A3·2) is asked before a call runs (None: every call runs); ``names``: offer
    only these tools (A1's agent offers four)."""

    def __init__(self, workspace: Workspace, memory=None, skills=None, approval=None,
                 names: tuple[str, ...] | None = None):
        self.workspace, self.memory, self.approval = workspace, memory, approval
        w = workspace
        # In the order the model sees them: recorded requests depend on this order.
        handlers = [w.list_files, w.read_file, w.write_file, w.edit_file, w.run_command]
        if memory is not None:
            handlers.append(memory.remember)
        if skills is not None:
            handlers.append(skills.read_skill)
        self.handlers = {h.__name__: h for h in handlers if names is None or h.__name__ in names}
        self.definitions = [h.definition for h in self.handlers.values()]

    def call(self, name: str, arguments: str | dict) -> str:
        handler = self.handlers.get(name)
        if handler is None:
            return f"error: unknown tool {name!r}; available: {', '.join(sorted(self.handlers))}"
        try:
            args = json.loads(arguments or "{}") if isinstance(arguments, str) else arguments
        except json.JSONDecodeError as err:
            return f"error: arguments are not valid JSON ({err})"
        # Check before the handler runs: a handler may assume its arguments have the declared types.
        problem = schema_problem(args, handler.definition["function"]["parameters"]) or unexpected(handler, args)
        if problem:
            return f"error: bad arguments for {name}: {problem}"
        if self.approval is not None:
            refusal = self.approval.check(name, args)
            if refusal:  # the call does not run; the model reads why
                return refusal
        try:
            return handler(**args)
        except OSError as err:  # its text may name this machine's absolute path: show it relative
            return f"error: {self.workspace.hide_root(err)}"
        except ToolError as err:
            return f"error: {err}"


def unexpected(handler, args: dict) -> str | None:
    """An argument the schema allows (it does not forbid extra ones) but the handler does not take."""
    taken = inspect.signature(handler).parameters  # a wrapper (edit_guard.py) sets __signature__
    extra = next((key for key in args if key not in taken), None)
    # Worded as Python words it (the recordings keep this text).
    return None if extra is None else f"{handler.__qualname__}() got an unexpected keyword argument {extra!r}"
