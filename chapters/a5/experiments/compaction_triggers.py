"""Record A5·1: when to compact. The same task under three triggers, each on a fresh server.

    python -m prefixlab record a5-1-triggers data/recordings/a5-1-triggers-smollm2-llamacpp

The course's llama-server with a 4,096-token context and one slot (``SERVER_ARGS``), one task
(``data/a5/triggers/script.yml``) on a fresh copy of the toy repository with a week of readings
(``data/toy-repo`` + ``data/a5/repo-overlay``). Scripted policy as in A6: every request goes to the
real server, the assistant turns come from the script, the tools run for real; the served model
writes each summary (miniagent's ``Compactor`` with ``model_summariser``, temperature 0). Variants:

- ``never``: no compaction; the history grows until the server refuses a request (recorded with
  its error, as in A5-1) and the session stops there;
- ``every-n``: compact whenever the path holds more than ``max_messages`` messages, however few
  tokens they are (``Compactor(max_messages=...)``);
- ``reserve``: compact when the request would come within ``reserve`` tokens of the ``window``
  (``threshold(window, reserve)``), counted exactly: the server's chat template and tokenizer
  render the messages and the tools as the server will.

``prefixlab report`` shows every request; the summary calls are requests too (``compaction``
entries with their request and response) and have their place in the order.
"""
from __future__ import annotations

from miniagent.compaction import Compactor, model_summariser, threshold
from miniagent.loop import run_task
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a5.experiments.context_limit import CONTEXT_EXCEEDED
from chapters.a5.paths import REPO_OVERLAY, TRIGGERS_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.chat_client import RequestRefused
from prefixlab.cache.tokenizer import exact_counter
from prefixlab.recording.policy import StampedPolicy, StampedModel
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A5-1-triggers"
SERVER_ARGS = ["-c", "4096", "-np", "1"]  # the script's window, one slot
GROUP = "frozen"  # miniagent's design as it ships (its memory is empty here)


class TriggersRecorder(Recorder):
    """A5·1: one task, compacted never, every N messages, or at the window less a reserve."""

    experiment = EXPERIMENT
    script_file = TRIGGERS_DIR / "script.yml"
    repository = Repository(TOY_REPO, (REPO_OVERLAY,))
    variants = ("never", "every-n", "reserve")
    server_args = tuple(SERVER_ARGS)

    def trigger(self, variant: str) -> str:
        """The trigger a variant uses: here, the variant's name."""
        return variant

    def summariser(self, variant: str, summary_model, tools: list[dict]):
        """miniagent's summary call as it ships: no tools offered."""
        return model_summariser(summary_model), {}

    def compactor(self, variant: str, order: list[float], tools: list[dict]) -> tuple[Compactor | None, dict]:
        """The compaction step of ``variant`` and what the manifest says about it."""
        s, trigger = self.script, self.trigger(variant)
        if trigger == "never":
            return None, {"trigger": "never"}
        summary_model = StampedModel(self.model(), order, self.clock, max_tokens=s["summary_max_tokens"],
                                     temperature=0)
        summarise, about = self.summariser(variant, summary_model, tools)
        if trigger == "every-n":
            return (Compactor(10**9, summarise, keep_rounds=s["keep_rounds"], max_messages=s["max_messages"]),
                    {"trigger": "messages", "max_messages": s["max_messages"], **about})
        budget = threshold(s["window"], s["reserve"])
        return (Compactor(budget, summarise, keep_rounds=s["keep_rounds"], count_tokens=exact_counter(tools)),
                {"trigger": "reserve", "window": s["window"], "reserve": s["reserve"], "budget": budget, **about})

    def run_variant(self, variant: str) -> None:
        workspace, memory = self.fresh_copy(variant)
        session = Session.open(self.out / f"{variant}.jsonl")
        toolbox = Toolbox(workspace, memory)
        order: list[float] = []
        step, info = self.compactor(variant, order, toolbox.definitions)
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)
        policy = StampedPolicy(self.model(), self.script["replies"], f"call_{variant}", self.clock, order=order)
        try:
            run_task(self.script["task"].strip(), model=policy, toolbox=toolbox, session=session,
                     steps=[design] if step is None else [step, design], max_rounds=len(self.script["replies"]),
                     log=self.log)
        except RequestRefused as refused:
            if refused.error["body"]["error"].get("type") != CONTEXT_EXCEEDED:
                raise  # another refusal is not what this experiment records: the recording stops incomplete
            self.record_refusal(session, refused, round_no=len(policy.sent_at))
            order.append(policy.sent_at[-1])
        else:
            if policy.turns:
                raise RuntimeError(f"{variant}: {len(policy.turns)} scripted replies were not used")
        self._register({"id": variant, "file": f"{variant}.jsonl", "group": GROUP, "day": 1, "kind": "main",
                        "keep_rounds": self.script["keep_rounds"], **info}, session, 0, order)

    run = run_variant  # what the default record() runs for each variant, on a fresh server


RECORDER = TriggersRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


