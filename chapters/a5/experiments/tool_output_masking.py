"""Record A5·2: masking old tool outputs, with and without llama-server's ``--cache-reuse``.

    python -m prefixlab record a5-2 data/recordings
    python -m prefixlab record a5-2 OUT --only a5-2-masking-reuse256-smollm2-llamacpp

One session (``data/a5/masking/script.yml``) on a fresh copy of the toy repository with a week of
readings (``data/toy-repo`` + ``data/a5/repo-overlay``) reads the readings one day at a time, with
miniagent's masking step (``miniagent.masking.ToolResultMasking``): before each call, every tool
result older than the last ``keep_rounds`` rounds is cut to its first line. Scripted policy as in
A6: every request goes to the real server, the assistant turns come from the script, the tools run
for real. The same session is recorded once per server setup (``SETUPS``), each into its own
recording ``OUT/<name>`` on a fresh server with one slot:

- ``reuse0`` (``--cache-reuse 0``, the server's default): the cache stops where the newly cut result
  was; everything after it is computed again;
- ``reuse256`` (``--cache-reuse 256``): the server finds the rest of the old prompt further on in its
  slot (a run of at least 256 tokens) and shifts it into place instead of computing it again.

The requests are the same in both recordings; only the server differs (``setup`` in the manifest,
the flags in ``provenance.server.flags``). Two more recordings measure against them:

- ``nomask-reuse0``: the same session without masking (every result stays whole), the baseline
  of tokens sent and read;
- ``placeholder-reuse256``: masking that replaces each old result with one fixed line
  (``PLACEHOLDER``) instead of keeping its first line, on the ``--cache-reuse 256`` server.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from miniagent.loop import run_task
from miniagent.masking import ToolResultMasking
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a5.paths import MASKING_DIR, REPO_OVERLAY
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER, TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import (Recorder, base_provenance, command_line, launch_llama_server,
                                          run_recording)
from prefixlab.recording.repository import Repository

EXPERIMENT = "A5-2"
GROUP = "frozen"  # miniagent's design as it ships (its memory is empty here)
PLACEHOLDER = "[old tool output removed]"
# recording name -> (setup, llama-server flags added to the course's; later flags win over the defaults)
SETUPS = {
    "a5-2-masking-reuse0-smollm2-llamacpp": ("reuse0", ["-np", "1", "--cache-reuse", "0"]),
    "a5-2-masking-reuse256-smollm2-llamacpp": ("reuse256", ["-np", "1", "--cache-reuse", "256"]),
    "a5-2-nomask-reuse0-smollm2-llamacpp": ("nomask-reuse0", ["-np", "1", "--cache-reuse", "0"]),
    "a5-2-placeholder-reuse256-smollm2-llamacpp": ("placeholder-reuse256", ["-np", "1", "--cache-reuse", "256"]),
}
DEFAULT_NAMES = list(SETUPS)  # what a run without --only records


def masking_step(setup: str, keep_rounds: int) -> ToolResultMasking | None:
    """The masking a setup uses: none, a fixed placeholder, or (the default) the first line."""
    if setup.startswith("nomask"):
        return None
    if setup.startswith("placeholder"):
        return ToolResultMasking(keep_rounds, placeholder=PLACEHOLDER)
    return ToolResultMasking(keep_rounds)


class MaskingRecorder(Recorder):
    """A5·2: one session with old tool results cut to their first line, on one server setup."""

    experiment = EXPERIMENT
    script_file = MASKING_DIR / "script.yml"
    repository = Repository(TOY_REPO, (REPO_OVERLAY,))

    def __init__(self, out: Path, connect, restart, provenance: dict, model_name: str, setup: str, log=print):
        super().__init__(out, connect, restart, provenance, model_name, log)
        self.setup = setup
        self.manifest["setup"] = setup

    def record(self) -> dict:
        self.log(f"recording {EXPERIMENT} ({self.setup}) into {self.out}")
        workspace, memory = self.fresh_copy("masking")
        session = Session.open(self.out / "masking.jsonl")
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)
        keep = self.script["keep_rounds"]
        masking = masking_step(self.setup, keep)
        policy = ScriptedPolicy(self.model(), self.script["replies"], "call_a5", self.clock)
        run_task(self.script["task"].strip(), model=policy, toolbox=Toolbox(workspace, memory), session=session,
                 steps=[design] if masking is None else [masking, design], max_rounds=len(self.script["replies"]))
        if policy.turns:
            raise RuntimeError(f"{len(policy.turns)} scripted replies were not used; the script and the loop "
                               "disagree (the task ended early)")
        info = {"id": "masking", "file": "masking.jsonl", "group": GROUP, "day": 1, "kind": "main", "keep_rounds": keep}
        if masking is None:
            info["masking"] = "none"
        elif masking.placeholder is not None:
            info["masking"] = {"placeholder": masking.placeholder}
        self._register(info, session, 0, policy.sent_at)
        return self.finish()


def main(argv=None, prog: str = "python -m prefixlab record a5-2") -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="directory to create; each recording goes into OUT/<name>")
    p.add_argument("--only", action="append", choices=list(SETUPS), metavar="NAME",
                   help=f"record only this one (repeatable): {', '.join(SETUPS)}")
    p.add_argument("--port", type=int, default=0, help="port for the launched servers (default: a free one)")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    names = args.only or DEFAULT_NAMES
    taken = [str(args.out / n) for n in names if (args.out / n).exists()]
    if taken:
        p.error(f"{', '.join(taken)} exists; choose a new directory (recordings are never overwritten)")
    code = 0
    for name in names:
        setup, flags = SETUPS[name]
        provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER, command_line(prog, argv))
        server, restart = launch_llama_server(provenance, args.port, extra_args=flags)
        recorder = MaskingRecorder(args.out / name, lambda server=server: server.openai_base_url, restart,
                                   provenance, "local", setup)
        code = run_recording(prog, recorder, server) or code
    return code


RECORDER = MaskingRecorder  # the experiment's recorder (prefixlab.recording.experiments)


def replay_recorder(recording, out, connect, restart, log):
    """The recorder that made ``recording`` (of the setup its manifest names), built as its command
    line builds it, and the options of its ``record`` call: what the offline replay test
    (tests/test_replay.py) runs against the recorded answers."""
    return MaskingRecorder(out, connect, restart, recording.provenance, "local", recording.manifest["setup"],
                           log=log), {}
