"""Record chapter A1's experiment: one task on the toy repository, as a chat request and as a loop.

    python -m prefixlab record a1 data/recordings/a1-loop-smollm2-llamacpp

The task, the system prompt and the scripted assistant turns are in ``data/a1/script.yml``; every
session works on a fresh copy of the toy repository (``data/toy-repo``) and starts on a freshly
started server (a new epoch: an empty cache), so each session's numbers are its own. The agent is
miniagent's loop (``miniagent.loop.run_task``) with four of its tools (``chapters.a1.agent``).

- ``naive`` (A1·1): the task as a single chat request with no tools. The model's answer is its own
  (``max_tokens`` from the script, temperature 0): SmolLM2-135M writes whatever it writes.
- ``loop`` (A1·1): the loop with the scripted policy: run the checks, read, edit, run again, answer.
- ``long`` (A1·2): the same task in twenty rounds; every request resends the whole history.
- ``long-no-cache`` (A1·2): the first rounds of ``long`` again (``long_no_cache_rounds``) with
  ``cache_prompt: false`` in every request, so the server evaluates every prompt token of every
  round (``timings.prompt_n``); a round limit ends it (all twenty would take an hour on a busy
  2-core machine).
- ``runaway-rounds`` / ``runaway-budget`` (A1·3): a policy that never answers (it runs the checks
  again and again) against ``Limits(max_rounds=...)`` and ``Limits(max_tokens=...)``; the loop stops
  cleanly and the session ends with a ``stopped`` entry. (The wall-time limit is not recorded: when
  it fires depends on the machine, so a replay could not repeat it; the lesson shows it with an
  injected clock.)

Scripted policy as everywhere in the course: each request goes to the real server (one generated
token), the assistant turn appended to the history is the script's.
"""
from __future__ import annotations

from miniagent.loop import Limits, run_task
from miniagent.session import Session
from miniagent.system_message import FixedPrompt

from chapters.a1.agent import NoTools, four_tools
from chapters.a1.paths import A1_SCRIPT
from prefixlab.paths import TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A1"
GROUP = "frozen"  # one system prompt for the whole task
NO_CACHE = {"extra_body": {"cache_prompt": False}}  # a llama.cpp request field, sent as it is


class Answered:
    """The model itself: its reply is appended as it is (the ``naive`` session)."""

    def __init__(self, model, clock, **params):
        self.model, self.clock, self.params = model, clock, params
        self.sent_at: list[float] = []

    def complete(self, messages, tools=None, **params):
        self.sent_at.append(self.clock())
        return self.model.complete(messages, tools, **{**self.params, **params})


class LoopRecorder(Recorder):
    """A1: naive, loop, long, long-no-cache, runaway-rounds, runaway-budget; each on a fresh server."""

    experiment = EXPERIMENT
    script_file = A1_SCRIPT
    repository = Repository(TOY_REPO)
    variants = ("naive", "loop", "long", "long-no-cache", "runaway-rounds", "runaway-budget")
    variant_label = "session"

    def turns(self, variant: str) -> list[dict]:
        if variant.startswith("runaway"):
            limits = self.limits(variant)
            return [self.script["runaway"]["turn"]] * (limits.max_rounds + 1 if limits.max_tokens is None else 100)
        return self.script["long" if variant.startswith("long") else variant]

    def limits(self, variant: str) -> Limits:
        if variant.startswith("runaway"):
            return Limits(**self.script["runaway"]["runs"][variant])
        if variant == "long-no-cache":
            return Limits(max_rounds=self.script["long_no_cache_rounds"])
        return Limits(max_rounds=1 if variant == "naive" else len(self.turns(variant)))

    def run(self, variant: str) -> None:
        workspace, _ = self.fresh_copy(variant)
        session = Session.open(self.out / f"{variant}.jsonl")
        if variant == "naive":
            policy, toolbox = Answered(self.model(), self.clock, max_tokens=self.script["naive"]["max_tokens"],
                                       temperature=0), NoTools()
        else:
            params = NO_CACHE if variant == "long-no-cache" else {}
            policy = ScriptedPolicy(self.model(), self.turns(variant), f"call_{variant}", self.clock, **params)
            toolbox = four_tools(workspace)
        run_task(self.script["task"], model=policy, toolbox=toolbox, session=session,
                 steps=[FixedPrompt(self.script["system"])], limits=self.limits(variant))
        info = {"id": variant, "file": f"{variant}.jsonl", "group": GROUP, "day": 1, "kind": "main",
                "policy": "model" if variant == "naive" else "scripted"}
        self._register(info, session, 0, policy.sent_at)


RECORDER = LoopRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


