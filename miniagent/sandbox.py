"""An opt-in sandbox for ``run_command``: every command runs inside bubblewrap (``--sandbox bwrap``).

Without it a command runs as the agent's user and can do whatever that user can: read the agent's
own environment through ``/proc/$PPID/environ`` (API key included), reach the network, write
anywhere the user may. Inside bubblewrap (Linux, https://github.com/containers/bubblewrap) it gets:

- the workspace bound read-write, the rest of the file system read-only, an empty ``/tmp``;
- a fresh PID namespace with its own ``/proc``: the agent's process is not in it, and the command
  is PID 1 there (``--as-pid-1``; otherwise bwrap's own init would be PID 1, and it still carries
  the environment bwrap was started with); when it exits, the kernel ends everything it left;
- no network (its own empty network namespace: only a loopback with nothing listening);
- a cleared environment: PATH, HOME, LANG and the run's mark (confined.RUN_MARK), nothing else.

The timeout, the kill and the output cap stay those of ``ConfinedWorkspace.run_command``: this module
only turns a command into the argument list that runs it inside bwrap. Where bubblewrap is not
installed, or the kernel refuses it the namespaces it needs, ``Bwrap()`` raises a ToolError
that says what is missing: miniagent never runs the command unsandboxed instead.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from .confined import RUN_MARK
from .tools import ToolError

SANDBOXES = ("bwrap",)  # the --sandbox choices
# The whole environment a sandboxed command gets (plus the run's mark).
SANDBOX_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
INSTALL_HINT = "install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


class Bwrap:
    """Wraps a command for ``ConfinedWorkspace(command_wrapper=...)``: ``bwrap(root, command, run_id)`` -> argv."""

    def __init__(self):
        self.binary = shutil.which("bwrap")
        if self.binary is None:
            raise ToolError(f"--sandbox bwrap: bubblewrap (bwrap) is not on PATH; {INSTALL_HINT}. "
                            "Commands are not run without the sandbox you asked for.")
        problem = self.try_run()
        if problem:
            raise ToolError(f"--sandbox bwrap: {self.binary} cannot make a sandbox here: {problem}. "
                            "It needs unprivileged user namespaces (Linux: kernel.unprivileged_userns_clone=1, "
                            "and on Ubuntu 24.04+ an AppArmor profile that allows bwrap; many container and "
                            "Binder hosts forbid them). Commands are not run without the sandbox you asked for.")

    def argv(self, root: Path, command: str, run_id: str) -> list[str]:
        """The command line that runs ``command`` with ``sh -c`` inside the sandbox, in ``root``."""
        env = [arg for name, value in {**SANDBOX_ENV, RUN_MARK: run_id}.items()
               for arg in ("--setenv", name, value)]
        root = str(root)
        return [self.binary,
                "--ro-bind", "/", "/",          # the whole file system, read-only ...
                "--dev", "/dev", "--proc", "/proc",  # ... a minimal /dev, a /proc of the new PID namespace
                "--tmpfs", "/tmp",              # an empty /tmp (before the workspace: it may be under /tmp)
                "--bind", root, root,           # ... and the workspace read-write
                "--chdir", root,
                "--unshare-all",                # new user, PID, network, IPC, UTS and cgroup namespaces
                "--as-pid-1", "--die-with-parent",
                "--clearenv", *env,
                "sh", "-c", command]

    __call__ = argv

    def try_run(self) -> str | None:
        """Why a trivial sandboxed command fails here, or None if it runs."""
        try:
            with tempfile.TemporaryDirectory() as tmp:
                done = subprocess.run(self.argv(Path(tmp), "true", "check"), stdin=subprocess.DEVNULL,
                                      capture_output=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired) as err:
            return str(err)
        if done.returncode != 0:
            return done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        return None
