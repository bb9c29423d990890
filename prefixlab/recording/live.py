"""What every recording made with the live model (``--model live``) shares: its server flags, its
tokenizer and the provenance of a recording made on it.

The live model is Qwen2.5 Coder 0.5B Instruct (``prefixlab.serving.models.LIVE``), served by the
course's llama-server with the chat template inside its GGUF. The chapters' experiments that record
with it import these; a long series of runs records in chunks with ``ChunkedLiveRecorder``.

The server runs with ``-t 1``: on a 2-core machine shared with other busy processes, two threads spent
most of their time waiting for each other (benchmarks/bench_live_model.py measures both).
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from prefixlab.paths import DATA, REPO_ROOT
from prefixlab.serving.server import sha256_file

TOKENIZER = DATA / "tokenizers" / "qwen2.5-coder-0.5b-instruct.tokenizer.json"  # derived from the GGUF
SERVER_ARGS = ["-t", "1"]


def live_provenance(server, command: str) -> dict:
    """What the recording must say about the server, the model, its template and the tokenizer."""
    from prefixlab.serving.models import LIVE
    from prefixlab.serving.state_size import kv_state_size

    prov = server.provenance()
    return {
        "server": {"kind": "llama-server", "restarts": True, **prov["server"], "flags": prov["flags"],
                   "props": prov["props"], "platform": prov["platform"],
                   "kv_state": kv_state_size(server.binary, server.model, server.cache, server.log)},
        "model": {"name": LIVE.description, **prov["model"]},
        # the template inside the GGUF, as the server reported it (GET /props)
        "chat_template": {"path": None, "sha256": prov["chat_template"]["sha256"],
                          "text": prov["chat_template"]["text"],
                          "server_uses_same_text": prov["chat_template"]["server_uses_same_text"]},
        "tokenizer": {"path": str(TOKENIZER.relative_to(REPO_ROOT)), "sha256": sha256_file(TOKENIZER)},
        "recorder": {"python": platform.python_version(), "platform": platform.platform(terse=True),
                     "command": command},
    }


class Sampled:
    """The live model with a run's sampling (temperature, seed, max_tokens); notes each send time
    (the recording's order)."""

    def __init__(self, model, clock, **params):
        self.model, self.clock, self.params = model, clock, params
        self.sent_at: list[float] = []

    def complete(self, messages, tools=None, **params):
        self.sent_at.append(self.clock())
        return self.model.complete(messages, tools, **{**self.params, **params})


def continue_recording(recorder, out: Path, manifest: dict, not_sessions: set[str] = frozenset()) -> None:
    """Go on with ``recorder`` where the recording in ``out`` (its ``manifest``) stopped: session files
    of a run that did not finish (not in the manifest) are set aside, a new epoch starts, and the clock
    continues after the last recorded request. ``not_sessions``: other .jsonl files of the folder."""
    from .format import write_manifest

    known = {info["file"] for info in manifest["sessions"]}
    for path in out.glob("*.jsonl"):
        if path.name not in known and path.name not in not_sessions:
            path.rename(path.with_suffix(".jsonl.unfinished"))
    manifest.pop("error", None)
    manifest["status"] = "recording"
    last = max((item["t"] for item in manifest["order"]), default=0.0)
    recorder.manifest = {**manifest, "provenance": {**manifest["provenance"],
                                                    "agent": recorder.manifest["provenance"]["agent"]}}
    recorder.epoch = max((item["epoch"] for item in manifest["order"]), default=-1) + 1
    clock = recorder.clock
    recorder.clock = lambda: round(last + 1 + clock(), 3)
    write_manifest(out, recorder.manifest)


class ChunkedLiveRecorder:
    """What a long series recorded with the live model shares: run it in chunks, resume it later.

    A mixin for a :class:`~prefixlab.recording.recorder.Recorder` subclass that says ``plan()`` (every
    ``(seed, variant)`` of the series, in recording order) and ``run(seed, variant)`` (one run,
    registered as it finishes), and puts ``"chunks": []`` in its manifest. ``--minutes M`` stops
    starting runs once the next one would not finish within M minutes (the server is shared: hold it
    briefly); ``--resume`` continues a recording on a fresh server, a new epoch, from the next run.
    Each chunk leaves a complete recording; the manifest's ``chunks`` says how many runs each recorded.
    """

    def plan(self) -> list[tuple[int, str]]:
        raise NotImplementedError(f"{type(self).__name__} must say what its series runs")

    def record(self, chunks: list[int] | None = None, minutes: float | None = None) -> dict:
        """Record the next runs of the plan: ``chunks`` (runs per epoch, the replay's schedule), or as
        many as fit in ``minutes`` on this server, and leave the recording complete."""
        planned = self.plan()
        todo = planned[len(self.manifest["sessions"]):]
        if chunks is not None:  # the replay: the recorded schedule, one epoch per chunk
            for i, count in enumerate(chunks):
                if i:
                    self.epoch = self.restart(self.epoch)
                for seed, variant in todo[:count]:
                    self.run(seed, variant)
                todo = todo[count:]
                self.manifest["chunks"].append(count)
            return self.finish()
        started, longest, done = time.monotonic(), 0.0, 0
        self.log(f"recording {self.experiment} into {self.out}: {len(todo)} runs left, epoch {self.epoch}")
        for seed, variant in todo:
            elapsed = time.monotonic() - started
            if minutes is not None and done and elapsed + longest > minutes * 60:
                self.log(f"stopping this chunk after {done} runs ({elapsed / 60:.1f} min); --resume continues")
                break
            began = time.monotonic()
            self.run(seed, variant)
            longest, done = max(longest, time.monotonic() - began), done + 1
            self.log(f"  run {len(self.manifest['sessions'])}/{len(planned)} ({variant}-{seed:02d}) in "
                     f"{time.monotonic() - began:.0f} s; this chunk {(time.monotonic() - started) / 60:.1f} min")
        self.manifest["chunks"].append(done)
        return self.finish()

    def resume(self, out: Path) -> None:
        """Continue the recording in ``out``: its manifest, a new epoch, the clock after its last request.
        Session files of a run that did not finish (not in the manifest) are set aside."""
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        if manifest.get("experiment") != self.experiment:
            raise SystemExit(f"{out} is not an {self.experiment} recording")
        continue_recording(self, out, manifest)

    @classmethod
    def main(cls, argv: list[str] | None = None, prog: str | None = None) -> int:
        """``PROG OUT [--port N] [--minutes M] [--resume]`` on the live model's server."""
        from prefixlab.serving.server import free_port, named_server

        from .recorder import command_line, run_recording

        prog = prog or f"python -m {cls.__module__}"
        doc = sys.modules[cls.__module__].__doc__ or ""
        p = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
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
        recorder = cls(args.out, lambda: server.openai_base_url, None, provenance, "local")
        if args.resume:
            recorder.resume(args.out)
        return run_recording(prog, recorder, server, minutes=args.minutes)

    @classmethod
    def replay_recorder(cls, recording, out, connect, restart, log):
        """The recorder that made ``recording`` and its ``record`` options (tests/test_replay.py): every
        chunk as it was recorded, one epoch each."""
        return cls(out, connect, restart, recording.provenance, "local", log=log), {"chunks": recording.manifest["chunks"]}
