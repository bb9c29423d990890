"""Record A2·4's experiment: miniagent with tools from the course's MCP server, one server or two,
its tool list fixed or changed mid-session (``notifications/tools/list_changed``).

    python -m prefixlab record a2-4 data/recordings/a2-4-mcp-smollm2-llamacpp

A1's task on a fresh copy of the toy repository (``data/toy-repo``), one session per variant of
``data/a2/mcp/script.yml``, each on a freshly started server (a new epoch). miniagent's own tools come
first, then the MCP servers' tools (``miniagent/mcp_tools.py``, the servers started on stdio as
``chapters/a2/mcp_server.py --root <the copy> ...``). The steps are the same in every variant: list
the checks and run them through the server, read and fix the file with miniagent's tools, run the
checks again, answer. In the ``-changed`` variants the (first) server adds ``show_check`` after the
second call, so the third request's tool block is longer.

Scripted policy as everywhere in the course: each request goes to the real server (one generated token),
the assistant turn appended to the history is the script's; the tool calls really run, the MCP ones on
the MCP server.
"""
from __future__ import annotations

import shlex
import sys

from miniagent.loop import run_task
from miniagent.mcp_tools import add_mcp
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox

from prefixlab.paths import REPO_ROOT, TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A2-4"
MCP_SERVER = REPO_ROOT / "chapters" / "a2" / "mcp_server.py"
SCRIPT = REPO_ROOT / "data" / "a2" / "mcp" / "script.yml"


def server_command(root, options: list[str]) -> str:
    """The command that starts the course's MCP server on ``root`` with ``options`` (this Python)."""
    return shlex.join([sys.executable, str(MCP_SERVER), "--root", str(root), *options])


class MCPRecorder(Recorder):
    """A2-4: one server, one server whose list changes, two servers the first of which changes."""

    experiment = EXPERIMENT
    script_file = SCRIPT
    repository = Repository(TOY_REPO)
    variants = ("one-server", "one-server-changed", "two-servers-changed")
    variant_label = "session"

    def run(self, variant: str) -> None:
        workspace, memory = self.fresh_copy(variant)
        servers = self.script["variants"][variant]
        session = Session.open(self.out / f"{variant}.jsonl")
        turns = self.script["turns"] + [{"answer": self.script["answer"]}]
        policy = ScriptedPolicy(self.model(), turns, f"call_{variant}", self.clock)
        toolbox = add_mcp(Toolbox(workspace, memory), [server_command(workspace.root, s) for s in servers])
        try:
            run_task(self.script["task"], model=policy, toolbox=toolbox, session=session,
                     steps=[FixedPrompt(self.script["system"])], max_rounds=len(turns))
        finally:
            toolbox.close()
        info = {"id": variant, "file": f"{variant}.jsonl", "group": "frozen", "day": 1, "kind": "main",
                "policy": "scripted", "mcp_servers": [" ".join(s) for s in servers]}
        self._register(info, session, 0, policy.sent_at)


RECORDER = MCPRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder
