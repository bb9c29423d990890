"""Record A2·5's loop runs: the live model drives miniagent's loop with constrained calls, with and without
the loop guard, on a short task; a small, bounded series.

    python -m prefixlab record a2-loop data/recordings/a2-loop-qwen2.5-coder-0.5b-llamacpp --minutes 14
    python -m prefixlab record a2-loop data/recordings/a2-loop-qwen2.5-coder-0.5b-llamacpp --resume --minutes 14

The task is the easier one of issue 44 ("run the checks and say how many pass"), on a fresh copy of the
toy repository, with miniagent's system prompt (mode ``frozen``) and six tools. Every reply is sampled under
miniagent's ``--constrained`` schema (``miniagent.constrained``: one call of an offered tool, or a final
answer), at ``TEMPERATURE`` with the run's seed, at most ``MAX_TOKENS`` tokens, and the loop stops after
``MAX_ROUNDS`` rounds. The model's calls run for real in the copy (as in A1·L). Two variants:

- ``constrained``: ``python -m miniagent --constrained`` as it ships;
- ``guarded``: the same with ``--loop-guard PATIENCE`` (``miniagent.loop_guard``): a call identical to the
  one before is answered by the harness, ``PATIENCE`` calls in a row made before stop the run.

Seeds 1, 2, ..., the two variants each (same seed, same first reply). Nothing is judged here: the lesson
counts the runs offline (``chapters/a2/loops.py``).
"""
from __future__ import annotations

from miniagent.constrained import ConstrainedModel
from miniagent.loop import Limits, run_task
from miniagent.loop_guard import GuardedLimits, LoopGuard
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from prefixlab.paths import TOY_REPO
from prefixlab.recording.live import ChunkedLiveRecorder, Sampled
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A2-loop"
GROUP = "frozen"
TASK = "Run python tools/check.py and tell me how many checks pass."
VARIANTS = ("constrained", "guarded")
RUNS = 10           # seeds per variant the series plans; a chunked recording may hold fewer (the manifest says)
MAX_ROUNDS = 8
PATIENCE = 3
TEMPERATURE = 0.7
MAX_TOKENS = 128


def session_id(seed: int, variant: str) -> str:
    return f"{variant}-{seed:02d}"


class LoopRunsRecorder(ChunkedLiveRecorder, Recorder):
    """A2·5's loop runs: constrained calls on the live model, with and without the loop guard."""

    experiment = EXPERIMENT
    repository = Repository(TOY_REPO)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.manifest.update({"policy": "live", "runs": RUNS, "task": TASK, "max_rounds": MAX_ROUNDS,
                              "patience": PATIENCE, "max_tokens": MAX_TOKENS,
                              "sampling": {"temperature": TEMPERATURE}, "chunks": []})

    def plan(self) -> list[tuple[int, str]]:
        return [(seed, variant) for seed in range(1, self.manifest["runs"] + 1) for variant in VARIANTS]

    def run(self, seed: int, variant: str) -> None:
        name = session_id(seed, variant)
        workspace, memory = self.fresh_copy(name)
        toolbox = Toolbox(workspace, memory)
        limits = Limits(max_rounds=MAX_ROUNDS)
        if variant == "guarded":
            toolbox = LoopGuard(toolbox, patience=PATIENCE)
            limits = GuardedLimits(max_rounds=MAX_ROUNDS, guard=toolbox)
        session = Session.open(self.out / f"{name}.jsonl")
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
        model = Sampled(ConstrainedModel(self.model()), self.clock, temperature=TEMPERATURE, seed=seed,
                        max_tokens=MAX_TOKENS)
        answer = run_task(TASK, model=model, toolbox=toolbox, session=session, steps=[design], limits=limits,
                          log=self.log)
        self.log(f"  final answer: {answer[:200]!r}")
        self._register({"id": name, "file": f"{name}.jsonl", "group": GROUP, "day": 1, "kind": "live",
                        "variant": variant, "seed": seed}, session, 0, model.sent_at)


RECORDER = LoopRunsRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder
