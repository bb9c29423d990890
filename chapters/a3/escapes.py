"""A3·1's cases, runnable: paths that try to leave the workspace, commands that try to outlive it.

Each command case runs three ways and measures what came back:

``subprocess.run``   what a first agent writes: ``subprocess.run(cmd, shell=True,
                     capture_output=True, timeout=...)``, the whole environment inherited
``group + drain``    its own process group, killed at the timeout, then the rest of the
                     output read to its end (the shape of mini-swe-agent's executor)
``miniagent``        ``ConfinedWorkspace.run_command`` (miniagent/confined.py)

Measured for each: seconds until the call returned, processes of the case still alive right
after it returned, bytes of output handed back, the peak of Python's own allocations during the
call (tracemalloc) and whether a secret from the environment showed up in the output.

Every process a case starts carries a probe variable in its environment (``A3_PROBE=<id>``); the
survivors are found through /proc by that mark (Linux) and killed when the case is done, so a
case leaves nothing running. Everything happens in a temporary directory.
"""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import tempfile
import time
import tracemalloc
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from miniagent.confined import ConfinedWorkspace
from miniagent.tools import ToolError, Workspace
from prefixlab.paths import REPO_ROOT

PROBE = "A3_PROBE"
FAKE_SECRET = ("OPENAI_API_KEY", "sk-course-demo-not-a-real-key")

COMMANDS = {
    # the shell waits for sleep: killing the shell alone leaves sleep running
    "never_ends": "sleep 600; echo done",
    # a shell loop that prints a numbered line for ever
    "prints_forever": 'i=0; while :; do echo "line $i"; i=$((i+1)); done',
    # a child in a session of its own keeps the output pipe; the foreground never ends
    "setsid_child": "setsid sh -c 'sleep 4; echo late' & sleep 600",
    # the command prints what it finds in its environment
    "reads_secret": 'echo "key=${OPENAI_API_KEY}"',
}
WAYS = ("subprocess.run", "group + drain", "miniagent")


@dataclass(frozen=True)
class CommandRun:
    case: str
    way: str
    seconds: float      # until the call returned
    survivors: int      # processes of the case alive right after the call returned
    kept_bytes: int     # output bytes (UTF-8) handed back to the caller
    peak_bytes: int     # peak of Python's allocations during the call
    leaked_secret: bool
    text: str           # the output's first 300 characters
    left: int = 0       # processes of the case still alive after the clean-up (always 0)


def naive_run(command: str, cwd: Path, timeout: float) -> bytes:
    """The first version: the whole environment, everything collected, the shell killed at the timeout."""
    try:
        done = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, timeout=timeout)
        return done.stdout + done.stderr
    except subprocess.TimeoutExpired as err:
        return (err.stdout or b"") + (err.stderr or b"")


def group_then_drain(command: str, cwd: Path, timeout: float) -> bytes:
    """Its own process group killed at the timeout, then the pipe read to its end."""
    proc = subprocess.Popen(command, shell=True, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()  # returns when every process holding the pipe has closed it
    return out


def probed(probe: str) -> list[int]:
    """Processes alive with ``A3_PROBE=probe`` in their environment (zombies have none)."""
    mark = f"{PROBE}={probe}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if mark in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def kill_until_gone(find, rounds: int) -> None:
    """Kill what find() lists, and look again: a process may have forked meanwhile."""
    for _ in range(rounds):
        pids = find()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)


def clean_up(probe: str) -> None:
    """Kill whatever a case left running."""
    kill_until_gone(lambda: probed(probe), rounds=10)


@contextmanager
def environment(**extra: str):
    """Variables set in our own environment for the duration (the commands inherit them)."""
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_case(case: str, way: str, timeout: float = 1.0, workdir: Path | None = None,
             command: str | None = None) -> CommandRun:
    """Run one command case (or ``command``, named ``case``) one way, measure it, then kill what it left."""
    command, probe = command or COMMANDS[case], secrets.token_hex(6)
    with tempfile.TemporaryDirectory() as tmp, environment(**{PROBE: probe, FAKE_SECRET[0]: FAKE_SECRET[1]}):
        cwd = Path(workdir or tmp)
        tracemalloc.start()
        started = time.monotonic()
        try:
            if way == "subprocess.run":
                text = naive_run(command, cwd, timeout).decode("utf-8", "replace")
            elif way == "group + drain":
                text = group_then_drain(command, cwd, timeout).decode("utf-8", "replace")
            elif way == "miniagent":
                text = ConfinedWorkspace(cwd, command_timeout=timeout).run_command(command)
            else:
                raise ValueError(f"unknown way {way!r}; choose one of {', '.join(WAYS)}")
            seconds = time.monotonic() - started
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        survivors = len(probed(probe))
        clean_up(probe)
        left = len(probed(probe))
    return CommandRun(case, way, seconds, survivors, len(text.encode()), peak, FAKE_SECRET[1] in text, text[:300],
                      left)


def run_all(timeout: float = 1.0) -> list[CommandRun]:
    return [run_case(case, way, timeout) for case in COMMANDS for way in WAYS]


# -- paths ----------------------------------------------------------------------------------------

PATH_CASES = {
    "dotdot": "../secret.txt",
    "absolute": None,          # the secret's absolute path, filled in by make_layout
    "symlink": "docs/secret.txt",
    "sibling": "../ws-old/notes.txt",
    "nul": "app.py\0.txt",
}
PATH_WAYS = ("plain join", "string prefix", "miniagent")


@dataclass(frozen=True)
class PathAttempt:
    case: str
    path: str
    way: str
    outcome: str   # "read outside" | "refused" | "crashed"
    message: str   # what the caller got (the file's text, the refusal, or the exception)


def make_layout(base: Path) -> tuple[Path, dict[str, str]]:
    """A workspace ``ws`` with a file, a symlink ``docs`` pointing out, and files next to it.

    base/secret.txt, base/ws-old/notes.txt (a sibling whose name starts with "ws"), base/ws/app.py,
    base/ws/docs -> base. Returns the workspace and the cases' paths.
    """
    (base / "secret.txt").write_text("password=hunter2\n", encoding="utf-8")
    (base / "ws-old").mkdir()
    (base / "ws-old" / "notes.txt").write_text("old notes\n", encoding="utf-8")
    ws = base / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("print('hi')\n", encoding="utf-8")
    os.symlink(base, ws / "docs")
    paths = dict(PATH_CASES, absolute=str(base / "secret.txt"))
    return ws, paths


def plain_join(root: Path, path: str) -> Path:
    return root / path  # an absolute ``path`` replaces root altogether


def string_prefix(root: Path, path: str) -> Path:
    real = (root / path).resolve()
    if not str(real).startswith(str(root.resolve())):
        raise ValueError(f"path escapes the workspace: {path!r}")
    return real


def try_path(root: Path, path: str, way: str) -> tuple[str, str]:
    try:
        if way == "plain join":
            text = plain_join(root, path).read_text(encoding="utf-8")
        elif way == "string prefix":
            text = string_prefix(root, path).read_text(encoding="utf-8")
        else:
            text = Workspace(root).read_file(path)
    except ToolError as err:
        return "refused", str(err)
    except ValueError as err:  # the string check's refusal, or Python's "embedded null byte"
        return ("crashed", f"{type(err).__name__}: {err}") if "null" in str(err) else ("refused", str(err))
    except OSError as err:
        return "crashed", f"{type(err).__name__}: {err}"
    return "read outside" if text != "print('hi')\n" else "read inside", text.strip()


def path_attempts() -> list[PathAttempt]:
    with tempfile.TemporaryDirectory() as tmp:
        root, paths = make_layout(Path(tmp))
        out = []
        for case, path in paths.items():
            for way in PATH_WAYS:
                outcome, message = try_path(root, path, way)
                out.append(PathAttempt(case, path.replace(tmp, "<tmp>"), way, outcome, message.replace(tmp, "<tmp>")))
        return out


# -- every escape, three ways: naive subprocess.run, miniagent's boundary, miniagent inside bwrap ------------

ESCAPE_WAYS = ("subprocess.run", "miniagent", "miniagent + bwrap")
ESCAPES = {
    # name: the command (filled in with the layout's paths); what "escaped" means is in escaped() below
    "path ..": "cat ../secret.txt",
    "absolute path": "cat {base}/secret.txt",
    "symlink": "cat docs/secret.txt",
    # the sandbox's / is read-only, not hidden: reading outside the workspace still works
    "read elsewhere (/etc/passwd)": "head -n 1 /etc/passwd",
    "write outside": "echo overwritten > {base}/notes.txt",
    "secret in the environment": 'echo "key=$OPENAI_API_KEY"',
    "secret via /proc/$PPID/environ": "tr '\\0' '\\n' < /proc/$PPID/environ | grep OPENAI_API_KEY",
    "network to 127.0.0.1": "bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' && echo CONNECTED",
    "background process": "sleep {mark} > /dev/null 2>&1 & echo started",
    # depth 4: at most 31 shells and 31 sleeps, whatever the limits; ulimit caps the processes as well
    "fork bomb (bounded)": ("ulimit -p {nproc} 2>/dev/null || ulimit -u {nproc}; "
                            "b() {{ if [ $1 -gt 0 ]; then b $(($1-1)) & b $(($1-1)) & fi; sleep {mark}; }}; b 4"),
}


@dataclass(frozen=True)
class EscapeRun:
    escape: str
    way: str
    verdict: str   # "escaped" | "stopped" | "unavailable"
    detail: str    # what showed it (output's start, processes left, or why the way is unavailable)


def own_process_count() -> int:
    """Processes of our user now (RLIMIT_NPROC counts all of them, not just the command's)."""
    uid, count = os.getuid(), 0
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            count += entry.stat().st_uid == uid
        except OSError:
            continue
    return count


def by_cmdline(mark: str) -> list[int]:
    """Processes whose command line holds ``mark`` (the sandbox clears the environment, so no probe variable)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if mark.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return [pid for pid in found if pid != os.getpid()]


def kill_by_cmdline(mark: str) -> None:
    kill_until_gone(lambda: by_cmdline(mark), rounds=20)


def run_escape(escape: str, way: str, timeout: float = 1.0) -> EscapeRun:
    """One escape one way, in a fresh temporary layout; whatever it leaves running is killed afterwards."""
    import socket

    from miniagent.sandbox import Bwrap
    try:
        wrapper = Bwrap() if way == "miniagent + bwrap" else None
    except ToolError as err:
        return EscapeRun(escape, way, "unavailable", str(err))
    mark = f"600.{secrets.randbelow(10**6):06d}"  # `sleep 600.xxxxxx`: findable by its command line
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as server:
        base = Path(tmp)
        ws, _ = make_layout(base)
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        command = ESCAPES[escape].format(base=base, port=server.getsockname()[1], mark=mark,
                                         nproc=own_process_count() + 100)
        try:
            if way == "subprocess.run":
                text = naive_run(command, ws, timeout).decode("utf-8", "replace")
            else:
                text = ConfinedWorkspace(ws, command_timeout=timeout, command_wrapper=wrapper).run_command(command)
            time.sleep(0.1)  # let a dying namespace go
            left = len(by_cmdline(mark))
            notes = (base / "notes.txt").read_text(encoding="utf-8") if (base / "notes.txt").exists() else ""
        finally:
            kill_by_cmdline(mark)
    escaped = {
        "write outside": notes == "overwritten\n",
        "network to 127.0.0.1": "CONNECTED" in text,
        "background process": left > 0,
        "fork bomb (bounded)": left > 0,
        "read elsewhere (/etc/passwd)": "root:" in text,
    }.get(escape, "hunter2" in text or FAKE_SECRET[1] in text)
    detail = f"{left} processes left" if escape in ("background process", "fork bomb (bounded)") else \
        text.strip().splitlines()[0][:80] if text.strip() else "(no output)"
    return EscapeRun(escape, way, "escaped" if escaped else "stopped", detail.replace(tmp, "<tmp>"))


def escape_rows(timeout: float = 1.0) -> list[EscapeRun]:
    return [run_escape(escape, way, timeout) for escape in ESCAPES for way in ESCAPE_WAYS]


def escape_table_as_agent(timeout: float = 1.0) -> list[EscapeRun]:
    """``escape_rows`` in a fresh Python process started with the fake key in its environment, as an agent is.

    A process's /proc/PID/environ shows the environment it was started with: setting the key in this
    (notebook) process now would not put it there, so the agent must be a process of its own.
    """
    import json
    import sys
    repo = REPO_ROOT
    env = dict(os.environ, **{FAKE_SECRET[0]: FAKE_SECRET[1]},
               PYTHONPATH=os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "chapters.a3.escapes", str(timeout)], env=env, cwd=repo,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"the escape table could not be computed: {done.stderr.strip()[-500:]}")
    return [EscapeRun(**row) for row in json.loads(done.stdout)]


if __name__ == "__main__":  # python -m chapters.a3.escapes [TIMEOUT]: the escape table as JSON
    import json
    import sys
    from dataclasses import asdict
    rows = escape_rows(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
    print(json.dumps([asdict(r) for r in rows], ensure_ascii=False))


def key_readable_after_pop() -> bool:
    """Does /proc/$PPID/environ still show the key after the agent pops it from os.environ? (it does)"""
    import sys
    script = ("import os; from miniagent.confined import ConfinedWorkspace; os.environ.pop('OPENAI_API_KEY'); "
              "print(ConfinedWorkspace('.').run_command(\"tr '\\\\0' '\\\\n' < /proc/$PPID/environ\"))")
    repo = REPO_ROOT
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, **{FAKE_SECRET[0]: FAKE_SECRET[1]}, PYTHONPATH=str(repo))
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp, env=env, capture_output=True, text=True,
                              timeout=60)
    return FAKE_SECRET[1] in done.stdout
