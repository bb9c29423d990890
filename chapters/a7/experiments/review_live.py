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

import argparse
import json
import sys
import time
from pathlib import Path

from miniagent.children import brief_text
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a7.paths import REPO_OVERLAY, REVIEW_DIR
from prefixlab.paths import TOY_REPO
from prefixlab.recording.format import write_manifest
from prefixlab.recording.live import SERVER_ARGS, live_provenance
from prefixlab.recording.policy import scripted_message
from prefixlab.recording.recorder import Recorder, command_line, run_recording
from prefixlab.recording.repository import Repository

EXPERIMENT = "A7-4-live"
GROUP = "frozen"
CONDITIONS = ("self", "fresh")


def plan(runs: int) -> list[tuple[int, str]]:
    """Every (seed, condition) of the series in recording order: seed by seed, both conditions each."""
    return [(seed, c) for seed in range(1, runs + 1) for c in CONDITIONS]


def session_id(seed: int, condition: str) -> str:
    return f"{condition}-{seed:02d}"


class ReviewLiveRecorder(Recorder):
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

    def record(self, chunks: list[int] | None = None, minutes: float | None = None) -> dict:
        """Record the next runs of the plan: ``chunks`` (runs per epoch, the replay's schedule), or as
        many as fit in ``minutes`` on this server, and leave the recording complete."""
        todo = plan(self.manifest["runs"])[len(self.manifest["sessions"]):]
        if chunks is not None:  # the replay: the recorded schedule, one epoch per chunk
            for i, count in enumerate(chunks):
                if i:
                    self.epoch = self.restart(self.epoch)
                for seed, condition in todo[:count]:
                    self.run(seed, condition)
                todo = todo[count:]
                self.manifest["chunks"].append(count)
            return self.finish()
        started, longest, done = time.monotonic(), 0.0, 0
        self.log(f"recording {EXPERIMENT} into {self.out}: {len(todo)} runs left, epoch {self.epoch}")
        for seed, condition in todo:
            elapsed = time.monotonic() - started
            if minutes is not None and done and elapsed + longest > minutes * 60:
                self.log(f"stopping this chunk after {done} runs ({elapsed / 60:.1f} min); --resume continues")
                break
            began = time.monotonic()
            self.run(seed, condition)
            longest, done = max(longest, time.monotonic() - began), done + 1
            self.log(f"  run {len(self.manifest['sessions'])}/{2 * self.manifest['runs']} "
                     f"({session_id(seed, condition)}) in {time.monotonic() - began:.0f} s; "
                     f"this chunk {(time.monotonic() - started) / 60:.1f} min")
        self.manifest["chunks"].append(done)
        return self.finish()


def resume(recorder: ReviewLiveRecorder, out: Path) -> None:
    """Continue the recording in ``out``: its manifest, a new epoch, the clock after its last request.
    Session files of a run that did not finish (not in the manifest) are set aside."""
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("experiment") != EXPERIMENT:
        raise SystemExit(f"{out} is not an {EXPERIMENT} recording")
    known = {info["file"] for info in manifest["sessions"]}
    for path in out.glob("*.jsonl"):
        if path.name not in known:
            path.rename(path.with_suffix(".jsonl.unfinished"))
    manifest.pop("error", None)
    manifest["status"] = "recording"
    last = max((item["t"] for item in manifest["order"]), default=0.0)
    recorder.manifest = {**manifest, "provenance": {**manifest["provenance"], "agent": recorder.manifest[
        "provenance"]["agent"]}}
    recorder.epoch = max((item["epoch"] for item in manifest["order"]), default=-1) + 1
    clock = recorder.clock
    recorder.clock = lambda: round(last + 1 + clock(), 3)
    write_manifest(out, recorder.manifest)


def main(argv=None, prog: str = "python -m prefixlab record a7-4-review-live") -> int:
    from prefixlab.serving.server import free_port, named_server

    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="recording directory to create (or to continue, with --resume)")
    p.add_argument("--port", type=int, default=0, help="port for the launched server (default: a free one)")
    p.add_argument("--minutes", type=float, default=None,
                   help="stop starting runs once the next would end after this many minutes")
    p.add_argument("--resume", action="store_true", help="continue the recording in OUT on a fresh server")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    if args.out.exists() and not args.resume:
        p.error(f"{args.out} exists; choose a new directory, or continue it with --resume")
    if args.resume and not (args.out / "manifest.json").exists():
        p.error(f"{args.out} holds no recording to continue")
    if args.minutes is not None and args.minutes <= 0:
        p.error("--minutes must be more than 0")
    server = named_server("live", port=args.port or free_port(), extra_args=SERVER_ARGS).start()
    provenance = live_provenance(server, command_line(prog, argv))
    recorder = ReviewLiveRecorder(args.out, lambda: server.openai_base_url, None, provenance, "local")
    if args.resume:
        resume(recorder, args.out)
    return run_recording(prog, recorder, server, minutes=args.minutes)


RECORDER = ReviewLiveRecorder  # the experiment's recorder (prefixlab.recording.experiments)


def replay_recorder(recording, out, connect, restart, log):
    """The recorder that made ``recording`` and its ``record`` options (tests/test_replay.py): every
    chunk as it was recorded, one epoch each."""
    chunks = recording.manifest["chunks"]
    return ReviewLiveRecorder(out, connect, restart, recording.provenance, "local", log=log), {"chunks": chunks}
