"""The agent's tools, all confined to one workspace directory.

File tools refuse absolute paths, ``..`` and symlinks that lead outside the
workspace. A file is written all or nothing: the text is encoded first, then
written to a temporary file that replaces the old one, so a failed write never
leaves a half-written or empty file.

``run_command`` runs in the workspace, in its own process group, with a timeout
and an output cap. The output is capped while it is read (a command printing
gigabytes costs no memory), and at the timeout the whole group is killed; a
background process that keeps the output pipe open does not keep us waiting.
A command gets our environment without the variables that look like secrets,
plus a mark of its run: a process that left the group (``setsid``) still
carries the mark, and is killed with the group (Linux: found through /proc).
It is not a sandbox (a command can still name other paths, or clear its
environment), which is why miniagent is meant for throwaway copies of a
repository.

Each tool's definition (what the model is told) sits on its handler, in the
``@tool`` line above it. ``Toolbox.call`` checks the model's arguments against
that definition's JSON schema before the handler runs.
"""
from __future__ import annotations

import json
import math
import os
import secrets
import selectors
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from .memory import MemoryFileError, MemoryStore, NoteRefused

OUTPUT_LIMIT = 8000  # characters of tool output the model gets back
COMMAND_TIMEOUT = 30.0  # seconds
# Bytes of a command's output kept at each end while reading; the middle is dropped as it arrives,
# so `yes` cannot fill the memory. Far more than OUTPUT_LIMIT: output that fits is kept whole.
KEEP_BYTES = 64 * 1024
# Variables whose names contain one of these never reach a command: an API key in the agent's
# environment is none of the command's business (Codex's default excludes, plus PASSWORD).
SECRET_NAME_PARTS = ("KEY", "SECRET", "TOKEN", "PASSWORD")
RUN_MARK = "MINIAGENT_RUN"  # set to a fresh id in every command's environment


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


class OutputBuffer:
    """A command's output as it arrives: the first and the last ``keep`` bytes, and how many in between."""

    def __init__(self, keep: int = KEEP_BYTES):
        self.keep, self.head, self.tail, self.dropped = keep, bytearray(), bytearray(), 0

    def add(self, data: bytes) -> None:
        room = self.keep - len(self.head)
        self.head += data[:room]
        self.tail += data[room:] if room > 0 else data
        if len(self.tail) > self.keep:
            extra = len(self.tail) - self.keep
            self.dropped += extra
            del self.tail[:extra]

    def capped(self, suffix: str, limit: int = OUTPUT_LIMIT) -> str:
        """The output and ``suffix`` for the model: whole up to ``limit`` characters, else its two ends."""
        if not self.dropped:  # all of it is here: exactly what the model always got
            return cap(decode(bytes(self.head + self.tail)) + suffix, limit)
        half = limit // 2
        head, tail = decode(bytes(self.head)), decode(bytes(self.tail)) + suffix
        cut = self.dropped + len(head[half:].encode()) + len(tail[:-half].encode())
        return f"{head[:half]}\n[... {cut} bytes of output cut ...]\n{tail[-half:]}"


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
    def __init__(self, root: Path | str, command_timeout: float = COMMAND_TIMEOUT, command_wrapper=None):
        self.root = Path(root).resolve()
        # None: a command runs with `sh -c` as we are. A sandbox.Bwrap: run_command runs the argument list
        # command_wrapper(root, command, run_id) instead (--sandbox bwrap; the same timeout, kill and cap).
        self.command_wrapper = command_wrapper
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
        real = (self.root / given).resolve()  # follows symlinks
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
        file = self.resolve(path)
        if not file.is_file():
            raise ToolError(f"no such file: {path!r}")
        return cap(file.read_text(encoding="utf-8", errors="replace"))

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
        file = self.resolve(path)
        if not file.is_file():
            raise ToolError(f"no such file: {path!r}")
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise ToolError(f"{path} is not UTF-8 text (byte {err.start}: {err.reason}); "
                            "edit_file only edits text files") from None
        count = text.count(old) if old else 0
        if count != 1:
            raise ToolError(f"the text to replace occurs {count} times in {path}; it must occur exactly once")
        replace_file(file, encode(text.replace(old, new), path))
        return f"Edited {path}."

    @tool("Run a shell command in the repository root and return its output.", command="The shell command")
    def run_command(self, command: str) -> str:
        # Its own session and process group: at the timeout we kill the command and all it started.
        run_id = secrets.token_hex(8)
        wrapped = self.command_wrapper and self.command_wrapper(self.root, command, run_id)
        proc = subprocess.Popen(wrapped or command, shell=not wrapped, cwd=self.root, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                                env=command_env(run_id))
        deadline = time.monotonic() + self.command_timeout
        output = OutputBuffer()
        try:
            eof = read_output(proc.stdout, output, deadline)
            if eof:  # the output is complete; the command may still be running
                proc.wait(timeout=max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            pass
        finally:
            proc.stdout.close()  # stop reading: never wait on a pipe something else still holds
        exited = proc.poll() is not None
        if not (exited and eof):  # a command that ends normally may leave a server running on purpose
            kill_group(proc.pid)
            kill_marked(run_id)  # what left the group with setsid still carries the run's mark
        proc.wait()
        if not exited:
            return output.capped(f"\n[timed out after {self.command_timeout:g} s; the command was killed]",
                                 self.output_limit)
        held = "" if eof else (f"\n[a process the command started still held the output open after "
                               f"{self.command_timeout:g} s; stopped reading]")
        return output.capped(f"\n[exit code {proc.returncode}]{held}", self.output_limit)


def read_output(pipe, output: OutputBuffer, deadline: float) -> bool:
    """Read ``pipe`` into ``output`` until its end (True) or the ``deadline`` (False)."""
    fd = pipe.fileno()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if selector.select(left):
                data = os.read(fd, 65536)
                if not data:
                    return True
                output.add(data)
    return False


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:  # nothing of the group is left
        pass


def command_env(run_id: str) -> dict[str, str]:
    """The environment a command gets: ours without the secret-looking variables, plus the run's mark."""
    env = {name: value for name, value in os.environ.items()
           if not any(part in name.upper() for part in SECRET_NAME_PARTS)}
    env[RUN_MARK] = run_id
    return env


def processes_marked(run_id: str) -> list[int]:
    """Our processes whose environment carries ``run_id``'s mark (Linux /proc; elsewhere none are found)."""
    mark = f"{RUN_MARK}={run_id}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or another user's process
            continue
        if mark in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def kill_marked(run_id: str) -> None:
    """Kill every process carrying the run's mark; look again, since one may have forked meanwhile."""
    for _ in range(5):
        pids = processes_marked(run_id)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)


class Toolbox:
    """Dispatches the model's tool calls; every failure becomes a message, not a crash."""

    def __init__(self, workspace: Workspace, memory: MemoryStore, skills=None, approval=None):
        self.workspace, self.memory = workspace, memory
        self.approval = approval  # an approval.Approval (A3·2); None: every call runs
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
        if self.approval is not None:
            refusal = self.approval.check(name, args)
            if refusal:  # the call does not run; the model reads why
                return refusal
        try:
            return handler(**args)
        except TypeError as err:  # an extra argument the schema allows but the handler does not take
            return f"error: bad arguments for {name}: {err}"
        except OSError as err:  # its text may name this machine's absolute path: show it relative
            return f"error: {self.workspace.hide_root(err)}"
        except (ToolError, NoteRefused, MemoryFileError) as err:
            return f"error: {err}"
