"""--sandbox bwrap (miniagent/sandbox.py): what a command can reach with and without it.

Where bubblewrap cannot run these tests skip and say why; with MINIAGENT_REQUIRE_BWRAP=1 (set by
.ci/run) a missing sandbox fails them instead.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from miniagent import cli
from miniagent.sandbox import Bwrap
from miniagent.confined import ConfinedWorkspace
from miniagent.tools import ToolError

FAKE_KEY = "sk-test-sandbox-fake-0000"
REPO = Path(__file__).resolve().parents[1]


def bwrap_problem() -> str | None:
    try:
        Bwrap()
    except ToolError as err:
        return str(err)
    return None


PROBLEM = bwrap_problem()
if PROBLEM and os.environ.get("MINIAGENT_REQUIRE_BWRAP") == "1":
    raise RuntimeError(f"MINIAGENT_REQUIRE_BWRAP=1 but the sandbox cannot run: {PROBLEM}")
needs_bwrap = pytest.mark.skipif(PROBLEM is not None, reason=f"bubblewrap cannot run here: {PROBLEM}")

# Every /proc/*/environ the command can see, and its parent's, searched for the key.
READ_ENVIRONS = r"""
for f in /proc/$PPID/environ /proc/[0-9]*/environ; do
  tr '\0' '\n' < "$f" 2>/dev/null | grep -q OPENAI_API_KEY=sk-test && echo "KEY FOUND in $f"
done
echo "looked in $(ls -d /proc/[0-9]* | wc -l) processes"
"""


def run_in_agent(workspace: Path, command: str, sandbox: bool, pop_key: bool = False) -> str:
    """``command`` through run_command in a fresh Python process started with the fake key set, as the agent is."""
    script = textwrap.dedent(f"""
        import os, sys
        from miniagent.confined import ConfinedWorkspace
        from miniagent.sandbox import Bwrap
        if {pop_key}:
            os.environ.pop("OPENAI_API_KEY")  # dropped after start-up
        ws = ConfinedWorkspace(sys.argv[1], command_timeout=20, command_wrapper=Bwrap() if {sandbox} else None)
        print(ws.run_command(sys.argv[2]))
    """)
    env = dict(os.environ, OPENAI_API_KEY=FAKE_KEY, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", script, str(workspace), command], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_without_the_sandbox_a_command_reads_the_agents_key_through_proc(tmp_path):
    out = run_in_agent(tmp_path, READ_ENVIRONS, sandbox=False)
    assert "KEY FOUND in /proc/" in out  # the parent's environ, at least
    # the variable itself is not passed on: only /proc gives it away
    assert "key=\n" in run_in_agent(tmp_path, 'echo "key=$OPENAI_API_KEY"', sandbox=False)


def test_dropping_the_key_from_os_environ_after_start_up_does_not_help(tmp_path):
    # /proc/PID/environ shows the environment the process was started with, not os.environ now.
    out = run_in_agent(tmp_path, READ_ENVIRONS, sandbox=False, pop_key=True)
    assert "KEY FOUND in /proc/" in out


@needs_bwrap
def test_inside_the_sandbox_no_process_it_can_see_carries_the_key(tmp_path):
    out = run_in_agent(tmp_path, READ_ENVIRONS, sandbox=True)
    assert "KEY FOUND" not in out
    # its parent is outside the new PID namespace ($PPID is 0 there); it sees only its own few processes
    seen = int(out.split("looked in ")[1].split()[0])
    assert 1 <= seen < 10
    env = run_in_agent(tmp_path, "env | sort", sandbox=True)
    names = sorted(line.split("=")[0] for line in env.splitlines() if "=" in line)
    assert names == ["HOME", "LANG", "MINIAGENT_RUN", "PATH", "PWD"]


@pytest.fixture
def listening_port():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)  # the kernel completes connections without accept()
    yield server.getsockname()[1]
    server.close()


CONNECT = "bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' && echo CONNECTED || echo REFUSED"


@needs_bwrap
def test_a_port_on_127_0_0_1_is_reachable_outside_and_not_inside(tmp_path, listening_port):
    command = CONNECT.format(port=listening_port)
    assert "CONNECTED" in ConfinedWorkspace(tmp_path).run_command(command)
    inside = ConfinedWorkspace(tmp_path, command_wrapper=Bwrap()).run_command(command)
    assert "REFUSED" in inside and "CONNECTED" not in inside


@needs_bwrap
def test_writes_outside_the_workspace_fail_inside_and_work_outside(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    sandboxed = ConfinedWorkspace(ws, command_wrapper=Bwrap())
    out = sandboxed.run_command(f"echo gone > {outside}; echo made > inside.txt; cat inside.txt")
    # /tmp inside is an empty tmpfs: the write lands there and vanishes; the real file is untouched
    assert "made" in out
    assert outside.read_text() == "keep me\n" and (ws / "inside.txt").read_text() == "made\n"
    probe = Path("/etc/miniagent-sandbox-probe")  # outside /tmp: the read-only bind of /
    assert "Read-only file system" in sandboxed.run_command(f"echo x > {probe}")
    assert not probe.exists()
    assert "[exit code 0]" in ConfinedWorkspace(ws).run_command(f"echo changed > {outside}")
    assert outside.read_text() == "changed\n"


@needs_bwrap
def test_timeout_kill_and_output_cap_are_kept(tmp_path):
    ws = ConfinedWorkspace(tmp_path, command_timeout=1, command_wrapper=Bwrap())
    out = ws.run_command("setsid sh -c 'sleep 60' & sleep 60")
    assert out.endswith("[timed out after 1 s; the command was killed]")
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "sleep 60" not in ps
    capped = ConfinedWorkspace(tmp_path, command_wrapper=Bwrap()).run_command("seq 1 200000")
    assert "bytes of output cut ...]" in capped and len(capped) < 8200 and capped.endswith("[exit code 0]")
    assert ConfinedWorkspace(tmp_path, command_wrapper=Bwrap()).run_command("exit 3").endswith("[exit code 3]")


def test_without_bwrap_on_path_the_error_says_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no bwrap
    with pytest.raises(ToolError, match=r"bubblewrap \(bwrap\) is not on PATH; install it"):
        Bwrap()


def test_a_bwrap_that_cannot_make_namespaces_is_an_error_not_a_fallback(tmp_path, monkeypatch):
    fake = tmp_path / "bwrap"  # what bwrap says where user namespaces are forbidden
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolError, match="No permissions to creating new namespace.*user namespaces"):
        Bwrap()


def test_cli_sandbox_flag_fails_clearly_without_bwrap(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    code = cli.main(["hi", "-w", str(tmp_path), "--sandbox", "bwrap", "--session", str(tmp_path / "s.jsonl"),
                     "--memory", str(tmp_path / "MEMORY.md"), "--server", "http://127.0.0.1:9/v1"])
    assert code == 1
    assert "--sandbox bwrap: bubblewrap (bwrap) is not on PATH" in capsys.readouterr().err
    assert not (tmp_path / "s.jsonl").exists()  # nothing ran


def test_default_workspace_has_no_wrapper(tmp_path):
    assert ConfinedWorkspace(tmp_path).command_wrapper is None
    assert cli.parse_args(["hi"]).sandbox is None
