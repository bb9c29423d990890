"""Record A7·4's small check: does the live model's review name a planted bug, reviewing itself or fresh?

    python -m prefixlab server fetch --model live      # once
    python -m prefixlab record a7-4-review-live data/recordings/a7-4-review-live-qwen2.5-coder-0.5b-llamacpp --minutes 14
    python -m prefixlab record a7-4-review-live data/recordings/a7-4-review-live-qwen2.5-coder-0.5b-llamacpp --resume --minutes 14

A tiny check on a 0.5B model, not a general claim. The change is the one of ``a7-4-review``
(``data/a7/review/script.yml``): the agent adds ``to_kelvin`` to ``units/convert.py`` with a planted
bug (it subtracts 273.15). The agent's rounds are the script's and run locally (the tools run for
real on a fresh copy of the repository); only the review requests go to the server: the live model
(Qwen2.5 Coder 0.5B, the course's llama-server, ``-t 1`` as in A1·L) writes each review, sampled at
the script's temperature with the run's seed, at most ``max_tokens`` tokens. Policy ``live``.

Conditions (one session per condition and seed; seeds 1, 2, ...; within a seed ``self`` first):

- ``self``: the agent's whole conversation (system prompt, task, ten rounds, its answer) and then
  the user's ``review_request``: self-review in the same long context;
- ``fresh``: a fresh reviewer, as miniagent's ``spawn_agent`` starts one in mode ``fresh``: the
  same system prompt, then the brief (``miniagent.children.brief_text`` of ``reviewer_brief``).

Both requests carry the same tool definitions (the agent's toolbox). ``names_bug`` (figures/review.py)
is the deterministic checker the lesson applies to each review.

Long series run in chunks as A5·3's: ``--minutes M`` stops starting runs once the next one would not
finish within M minutes, and ``--resume`` continues the recording on a fresh server (a new epoch).
"""
from __future__ import annotations


from miniagent.children import brief_text
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a7.paths import REPO_OVERLAY, REVIEW_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.live import ChunkedLiveRecorder
from prefixlab.recording.policy import scripted_message
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A7-4-live"
GROUP = "frozen"
CONDITIONS = ("self", "fresh")


def plan(runs: int) -> list[tuple[int, str]]:
    """Every (seed, condition) of the series in recording order: seed by seed, both conditions each."""
    return [(seed, c) for seed in range(1, runs + 1) for c in CONDITIONS]


def session_id(seed: int, condition: str) -> str:
    return f"{condition}-{seed:02d}"


class ReviewLiveRecorder(ChunkedLiveRecorder, Recorder):
    """A7·4's check: the live model reviews the planted bug in the same context or as a fresh reviewer."""

    experiment = EXPERIMENT
    script_file = REVIEW_DIR / "script.yml"
    repository = Repository(TOY_REPO, (REPO_OVERLAY,))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        s = self.script
        self.manifest.update({"policy": "live", "runs": s["runs"], "max_tokens": s["max_tokens"],
                              "sampling": s["sampling"], "chunks": []})

    def context(self, name: str, condition: str) -> tuple[Session, Toolbox]:
        """The session up to the review request, built locally: the tools run, nothing is sent."""
        s = self.script
        workspace, memory = self.fresh_copy(name)
        toolbox = Toolbox(workspace, memory)
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)
        session = Session.open(self.out / f"{name}.jsonl")
        if condition == "fresh":
            design.start(session, "")
            session.append("message", message={"role": "user", "content": brief_text(**s["reviewer_brief"])})
            return session, toolbox
        task = design.start(session, s["task"].strip())
        session.append("message", message={"role": "user", "content": task})
        for round_no, turn in enumerate(s["change"], start=1):
            design.before_call(session, round_no, self.log)
            message = scripted_message(turn, f"call_{name}_{round_no}")
            session.append("message", message=message)
            for call in message.get("tool_calls") or []:
                result = toolbox.call(call["function"]["name"], call["function"]["arguments"])
                session.append("message", message={"role": "tool", "tool_call_id": call["id"], "content": result})
        session.append("message", message={"role": "user", "content": s["review_request"].strip()})
        return session, toolbox

    def run(self, seed: int, condition: str) -> None:
        s, name = self.script, session_id(seed, condition)
        session, toolbox = self.context(name, condition)
        sent_at = [self.clock()]
        reply = self.model().complete(session.messages(), toolbox.definitions, max_tokens=s["max_tokens"],
                                      **s["sampling"], seed=seed)
        session.append("model_call", round=1, request=reply.request, response=reply.response)
        session.append("message", message=reply.message)
        info = {"id": name, "file": f"{name}.jsonl", "group": GROUP, "day": 1, "kind": "live",
                "variant": condition, "seed": seed}
        self._register(info, session, 0, sent_at)

    def plan(self) -> list[tuple[int, str]]:
        return plan(self.manifest["runs"])


RECORDER = ReviewLiveRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder
resume = RECORDER.resume  # resume(recorder, out)
