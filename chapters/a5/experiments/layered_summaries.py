"""Record A5·3: what a summary keeps, and what summaries of summaries lose. The live model writes them.

    python -m prefixlab server fetch --model live      # once
    python -m prefixlab record a5-3 data/recordings/a5-3-layers-qwen2.5-coder-0.5b-llamacpp --minutes 14
    python -m prefixlab record a5-3 data/recordings/a5-3-layers-qwen2.5-coder-0.5b-llamacpp --resume --minutes 14

One task (``data/a5/layers/script.yml``) whose user message states a rule (不许改测试文件), nine
scripted rounds on a fresh copy of the toy repository (the tools run for real) and three
compactions, before rounds 4, 7 and 10, each keeping only the latest round: the first summary
replaces the task itself, the second replaces the first summary, the third the second. Only the
summary calls go to the server (the agent's own requests would not change what a summary says,
and on a shared 2-core machine every request costs seconds): the live model (Qwen2.5 Coder 0.5B,
the course's llama-server, ``-t 1`` as in A1·L) writes each summary, sampled at the script's
temperature with the run's seed, at most ``summary_max_tokens`` tokens. Policy ``live``.

Variants (one session per variant and seed; seeds 1, 2, ...; the order is ``plan``'s):

- ``free``: miniagent's ``model_summariser`` with a free-form request ("Summarize the conversation so far.");
- ``structured``: the hand-off request in sections, rules first and word for word (``STRUCTURED_REQUEST``);
- ``keep-user``: the free request, and ``Compactor(keep_user_messages=True)``: the replaced user
  messages stay word for word above each summary;
- ``agents-md``: the free request, the rule in AGENTS.md (so in the system prompt), not in the task.

Long series run in chunks: ``--minutes M`` stops starting runs once the next one would not finish
within M minutes (the server is shared; hold it briefly), and ``--resume`` continues a recording on
a fresh server (a new epoch) from the next (seed, variant). Each chunk leaves a complete recording;
the manifest's ``runs`` says how many were planned and ``chunks`` how many runs each chunk recorded.
"""
from __future__ import annotations


from miniagent.compaction import STRUCTURED_REQUEST, Compactor, model_summariser
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a5.paths import LAYERS_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.live import ChunkedLiveRecorder
from prefixlab.recording.policy import scripted_message
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A5-3"
GROUP = "frozen"  # miniagent's design as it ships: AGENTS.md read at the start and after a compaction
VARIANTS = ("free", "structured", "keep-user", "agents-md")
FIXES = ("keep-user", "agents-md")


def plan(runs: int, fix_runs: int, variants: tuple[str, ...] = VARIANTS) -> list[tuple[int, str]]:
    """Every (seed, variant) of the series, in recording order: seed by seed, the two summary requests
    (``free``, ``structured``) for ``runs`` seeds, the two fixes only for the first ``fix_runs`` of them;
    then the fixes' remaining seeds. A fix puts the rule where no summary can drop it, so its runs
    confirm rather than estimate: they come first only as far as a chunk allows."""
    prompts = [v for v in variants if v not in FIXES]
    fixes = [v for v in variants if v in FIXES]
    first = [(seed, v) for seed in range(1, runs + 1) for v in prompts + (fixes if seed <= fix_runs else [])]
    return first + [(seed, v) for seed in range(fix_runs + 1, runs + 1) for v in fixes]


def session_id(seed: int, variant: str) -> str:
    return f"{variant}-{seed:02d}"


class SummaryModel:
    """The served model writing a summary: sampled with the run's seed; its send time noted."""

    def __init__(self, model, sent_at: list[float], clock, **params):
        self.model, self.sent_at, self.clock, self.params = model, sent_at, clock, params

    def complete(self, messages, tools=None, **params):
        self.sent_at.append(self.clock())
        return self.model.complete(messages, tools, **{**self.params, **params})


class LayersRecorder(ChunkedLiveRecorder, Recorder):
    """A5·3: one task, three compactions, four ways to keep the rule; run after run, seed by seed."""

    experiment = EXPERIMENT
    script_file = LAYERS_DIR / "script.yml"
    repository = Repository(TOY_REPO)
    variants = VARIANTS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        s = self.script
        self.manifest.update({"policy": "live", "rule": s["rule"], "runs": s["runs"], "fix_runs": s["fix_runs"],
                              "chunks": []})

    # -- one run ------------------------------------------------------------------------------
    def compactor(self, variant: str, seed: int, sent_at: list[float]) -> Compactor:
        s = self.script
        model = SummaryModel(self.model(), sent_at, self.clock, max_tokens=s["summary_max_tokens"],
                             **s["sampling"], seed=seed)
        request = STRUCTURED_REQUEST if variant == "structured" else s["free_request"]
        return Compactor(0, model_summariser(model, request=request), keep_rounds=s["keep_rounds"],
                         keep_user_messages=variant == "keep-user")

    def run(self, seed: int, variant: str) -> None:
        s, name = self.script, session_id(seed, variant)
        workspace, memory = self.fresh_copy(name)
        if variant == "agents-md":
            agents = workspace.root / "AGENTS.md"
            agents.write_text(agents.read_text(encoding="utf-8") + s["agents_md_line"] + "\n", encoding="utf-8")
        task = (s["task_without_rule"] if variant == "agents-md" else s["task"]).strip()
        session = Session.open(self.out / f"{name}.jsonl")
        toolbox = Toolbox(workspace, memory)
        sent_at: list[float] = []
        compactor = self.compactor(variant, seed, sent_at)
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)
        task = design.start(session, task)
        session.append("message", message={"role": "user", "content": task})
        for round_no, turn in enumerate(s["replies"], start=1):
            if round_no in s["compact_before"]:
                compactor.compact(session, compactor.tokens(session))
            design.before_call(session, round_no, self.log)
            message = scripted_message(turn, f"call_{name}_{round_no}")
            session.append("message", message=message)
            for call in message["tool_calls"]:
                result = toolbox.call(call["function"]["name"], call["function"]["arguments"])
                session.append("message", message={"role": "tool", "tool_call_id": call["id"], "content": result})
        if s["replies"] and len(s["replies"]) + 1 in s["compact_before"]:
            compactor.compact(session, compactor.tokens(session))
        info = {"id": name, "file": f"{name}.jsonl", "group": GROUP, "day": 1, "kind": "live",
                "variant": variant, "seed": seed, "keep_rounds": s["keep_rounds"],
                "summary_request": "structured" if variant == "structured" else "free",
                "keep_user_messages": variant == "keep-user",
                "rule_in": "agents-md" if variant == "agents-md" else "message"}
        self._register(info, session, 0, sent_at)

    def plan(self) -> list[tuple[int, str]]:
        return plan(self.manifest["runs"], self.manifest["fix_runs"], self.variants)


RECORDER = LayersRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder
resume = RECORDER.resume  # resume(recorder, out)
