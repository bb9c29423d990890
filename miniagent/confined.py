"""A3·1: commands that cannot hold the loop, fill the context or read the agent's secrets.

``ConfinedWorkspace`` is A1's ``Workspace`` (tools.py) with a stricter ``run_command``: it reads
the output as it arrives and keeps only its two ends (a command printing gigabytes costs no
memory), stops reading at the timeout even when a process that left the group still holds the
pipe, then kills the whole group and every process carrying the run's mark (a process that left
with ``setsid`` still has it; Linux: found through /proc). A command gets our environment without
the variables that look like secrets, plus that mark.

It is not a sandbox (a command can still name other paths, or clear its environment): sandbox.py
runs each command inside bubblewrap (``command_wrapper``), and miniagent is meant for throwaway
copies of a repository.
"""
from __future__ import annotations

import os
import secrets
import selectors
import signal
import subprocess
import time
from pathlib import Path

from .tools import COMMAND_TIMEOUT, OUTPUT_LIMIT, Workspace, cap, decode

# Bytes of a command's output kept at each end while reading; the middle is dropped as it arrives,
# so `yes` cannot fill the memory. Far more than OUTPUT_LIMIT: output that fits is kept whole.
KEEP_BYTES = 64 * 1024
# Variables whose names contain one of these never reach a command: an API key in the agent's
# environment is none of the command's business (Codex's default excludes, plus PASSWORD).
SECRET_NAME_PARTS = ("KEY", "SECRET", "TOKEN", "PASSWORD")
RUN_MARK = "MINIAGENT_RUN"  # set to a fresh id in every command's environment


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


class ConfinedWorkspace(Workspace):
    def __init__(self, root: Path | str, command_timeout: float = COMMAND_TIMEOUT, command_wrapper=None):
        super().__init__(root, command_timeout)
        # None: a command runs with `sh -c` as we are. A sandbox.Bwrap: run_command runs the argument list
        # command_wrapper(root, command, run_id) instead (--sandbox bwrap; the same timeout, kill and cap).
        self.command_wrapper = command_wrapper

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

    # What the model is told stays A1's, and so does the name an argument error gives (recordings keep it).
    run_command.definition = Workspace.run_command.definition
    run_command.__qualname__ = Workspace.run_command.__qualname__


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
