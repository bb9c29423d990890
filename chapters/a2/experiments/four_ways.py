"""Record A2's four ways to get a tool call out of the live model, on one request, many seeds.

    python -m prefixlab server fetch --model live      # once
    python -m prefixlab record a2-ways data/recordings/a2-ways-qwen2.5-coder-0.5b-llamacpp --minutes 14
    python -m prefixlab record a2-ways data/recordings/a2-ways-qwen2.5-coder-0.5b-llamacpp --resume --minutes 14

The request is the first one of the A1 live recording: miniagent's system prompt (mode ``frozen``), A1's
task, miniagent's six tools, on a fresh copy of the toy repository. The live model (Qwen2.5 Coder 0.5B,
the course's llama-server, ``-t 1`` as in A1·L) answers it, sampled at ``TEMPERATURE`` with the run's
seed, at most ``MAX_TOKENS`` tokens. Policy ``live``. One session per way and seed; seeds 1, 2, ...;
within a seed the ways in the order of ``WAYS``:

- ``auto``: the request as miniagent sends it (no ``tool_choice``: the server's default, auto);
- ``required``: the same with ``tool_choice: "required"``;
- ``schema``: the same with miniagent's ``--constrained`` schema (``miniagent.constrained``): a
  ``response_format`` that allows one call of an offered tool, with its own parameters, or a final answer;
- ``text``: the request as in ``auto``; a call written as text is lifted (``miniagent.text_calls``), and
  a reply that tried to call a tool but cannot be read gets miniagent's correction once
  (``miniagent.call_retry.CORRECTION``): a bounded retry of one, so one or two requests.

Nothing is run: the lesson counts the replies offline (``chapters/a2/four_ways.py``). Long series run
in chunks (``--minutes``, ``--resume``) as A5·3's and A7·4's.
"""
from __future__ import annotations

import json

from miniagent.call_retry import CORRECTION, tried_to_call
from miniagent.constrained import ConstrainedModel
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.text_calls import lift_text_calls
from miniagent.tools import Toolbox

from chapters.a2.paths import LIVE_RECORDING
from prefixlab.paths import TOY_REPO
from prefixlab.recording.live import ChunkedLiveRecorder
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A2-ways"
GROUP = "frozen"
WAYS = ("auto", "required", "schema", "text")
RUNS = 30           # seeds per way the series plans; a chunked recording may hold fewer (the manifest says)
TEMPERATURE = 0.7
MAX_TOKENS = 128    # as A1·L's live run


def a1_task() -> str:
    """A1's task, as the A1 live recording's first request carries it (its last message)."""
    with open(LIVE_RECORDING / "miniagent-prompt.jsonl", encoding="utf-8") as f:
        request = next(e["request"] for e in map(json.loads, f) if e["type"] == "model_call")
    return request["messages"][-1]["content"]


def plan(runs: int) -> list[tuple[int, str]]:
    """Every (seed, way) in recording order: seed by seed, the four ways each."""
    return [(seed, way) for seed in range(1, runs + 1) for way in WAYS]


def session_id(seed: int, way: str) -> str:
    return f"{way}-{seed:02d}"


class FourWaysRecorder(ChunkedLiveRecorder, Recorder):
    """A2's four ways on A1's first request: native auto, required, a JSON schema, text with one retry."""

    experiment = EXPERIMENT
    repository = Repository(TOY_REPO)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.manifest.update({"policy": "live", "runs": RUNS, "max_tokens": MAX_TOKENS,
                              "sampling": {"temperature": TEMPERATURE}, "chunks": []})

    def run(self, seed: int, way: str) -> None:
        name = session_id(seed, way)
        workspace, memory = self.fresh_copy(name)
        tools = Toolbox(workspace, memory).definitions
        session = Session.open(self.out / f"{name}.jsonl")
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
        session.append("message", message={"role": "user", "content": design.start(session, a1_task())})
        params = {"max_tokens": MAX_TOKENS, "temperature": TEMPERATURE, "seed": seed}
        model = ConstrainedModel(self.model()) if way == "schema" else self.model()
        if way == "required":
            params["tool_choice"] = "required"
        sent_at = []
        for round_no in (1, 2):
            design.before_call(session, round_no, self.log)
            sent_at.append(self.clock())
            reply = model.complete(session.messages(), tools, **params)
            message = reply.message
            if way == "text":
                message = lift_text_calls(message, tools, f"text_call_{round_no}")
            session.append("model_call", round=round_no, request=reply.request, response=reply.response)
            session.append("message", message=message)
            if way != "text" or message.get("tool_calls") or not tried_to_call(message["content"]):
                break
            session.append("message", message={"role": "user", "content": CORRECTION})
        info = {"id": name, "file": f"{name}.jsonl", "group": GROUP, "day": 1, "kind": "live",
                "variant": way, "seed": seed}
        self._register(info, session, 0, sent_at)

    def plan(self) -> list[tuple[int, str]]:
        return plan(self.manifest["runs"])


RECORDER = FourWaysRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder
