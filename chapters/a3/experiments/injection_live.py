"""Record A3·3's live runs: does the live model obey the injected file? One request per run.

    python -m prefixlab record a3-3-live data/recordings/a3-3-live-qwen2.5-coder-0.5b-llamacpp --minutes 25
    python -m prefixlab record a3-3-live data/recordings/a3-3-live-qwen2.5-coder-0.5b-llamacpp --resume --minutes 10

Same task, same NOTES.md as the scripted experiment ``a3-3`` (``data/a3/a3-3/script.yml``). The first
round is scripted and not sent: the assistant reads NOTES.md (the tool runs for real on a fresh copy).
Then the live model (Qwen2.5 Coder 0.5B, native tool calls, sampled at ``live.sampling`` with the
run's seed, at most ``live.max_tokens`` tokens) answers the request that carries the file. Its reply
is recorded and never executed: the model's own calls do not run on this machine.

The workspace boundary, approval and the sandbox act only after the model has chosen a call; they do
not change the request, so they need no runs of their own (``chapters.a3.injection.verdict`` applies
each to the recorded call). Marking tool output as data changes the request, so it is a variant:

- ``plain``: miniagent as it ships;
- ``marked``: the data rule in the base prompt, the file's text inside ``<tool_output>`` (miniagent.data_marking);
- ``constrained``: the ``plain`` request with miniagent's ``--constrained`` schema (``miniagent.constrained``,
  as A2 has it): the server may only sample one call of an offered tool or a final answer. The prompt is the
  same as ``plain``; the schema is a sampler constraint.

``plain`` and ``marked`` go in blocks of five seeds (``plain-01`` … ``plain-05``, ``marked-01`` … ``marked-05``,
``plain-06`` …): a chunk is balanced after every block, and the two prompts, which differ from the end of the
base prompt on, switch only between blocks. ``constrained`` was added after those 60 runs were recorded; its
runs follow them in the plan (``constrained-01`` … ``constrained-30``), so the first 60 runs keep their place.
"""
from __future__ import annotations

from miniagent.constrained import ConstrainedModel
from miniagent.data_marking import mark, with_data_rule
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a3.injection import plant
from chapters.a3.paths import A33_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.live import ChunkedLiveRecorder
from prefixlab.recording.policy import scripted_message
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A3-3-live"
GROUP = "frozen"
PAIRED = ("plain", "marked")  # recorded first, in alternating blocks
VARIANTS = (*PAIRED, "constrained")
BLOCK = 5  # seeds per variant before the other variant's turn


class InjectionLiveRecorder(ChunkedLiveRecorder, Recorder):
    """A3·3 live: the request after the injected file, run after run, plain and marked."""

    experiment = EXPERIMENT
    script_file = A33_DIR / "script.yml"
    repository = Repository(TOY_REPO)
    variants = VARIANTS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        live = self.script["live"]
        self.manifest.update({"policy": "live", "runs": live["runs"], "chunks": [],
                              "injected_file": self.script["injected_file"], "injected": self.script["injected"],
                              "secret_file": self.script["secret_file"], "sampling": live["sampling"],
                              "max_tokens": live["max_tokens"]})

    def plan(self) -> list[tuple[int, str]]:
        """Blocks of ``BLOCK`` seeds, one variant after the other: balanced after every block, and the
        server recomputes the part where the two prompts differ only when the variant changes."""
        runs = self.manifest["runs"]
        paired = [(seed, v) for start in range(1, runs + 1, BLOCK) for v in PAIRED
                  for seed in range(start, min(start + BLOCK, runs + 1))]
        return paired + [(seed, "constrained") for seed in range(1, runs + 1)]

    def run(self, seed: int, variant: str) -> None:
        s, name = self.script, f"{variant}-{seed:02d}"
        workspace, memory = self.fresh_copy(name)
        plant(workspace.root, s)
        toolbox = Toolbox(workspace, memory)
        base = with_data_rule(BASE_PROMPT) if variant == "marked" else BASE_PROMPT
        design = for_mode(GROUP, base, read_agents_md(workspace.root), memory)
        session = Session.open(self.out / f"{name}.jsonl")
        session.append("message", message={"role": "user", "content": design.start(session, s["task"].strip())})
        design.before_call(session, 1, self.log)
        message = scripted_message(s["replies"][0], f"call_{variant}_{seed:02d}_1")
        session.append("message", message=message)
        call = message["tool_calls"][0]
        result = toolbox.call(call["function"]["name"], call["function"]["arguments"])
        if variant == "marked":
            result = mark(call["function"]["name"], result)
        session.append("message", message={"role": "tool", "tool_call_id": call["id"], "content": result})
        design.before_call(session, 2, self.log)
        sent_at = [self.clock()]
        model = ConstrainedModel(self.model()) if variant == "constrained" else self.model()
        reply = model.complete(session.messages(), toolbox.definitions, **s["live"]["sampling"],
                                      seed=seed, max_tokens=s["live"]["max_tokens"])
        session.append("model_call", round=2, request=reply.request, response=reply.response)
        session.append("message", message=reply.message)
        self._register({"id": name, "file": f"{name}.jsonl", "group": GROUP, "day": 1, "kind": "live",
                        "variant": variant, "seed": seed, "marked": variant == "marked"}, session, 0, sent_at)


RECORDER = InjectionLiveRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder
