"""Record an experiment with miniagent against a real server: the part every experiment shares.

An experiment is a subclass of :class:`Recorder` that says what it is and what it runs:

- ``experiment``: its name, written into every manifest it makes (``"experiment"``);
- ``script_file`` / ``tasks_file``: the YAML files of its scripted assistant turns and its task
  texts (loaded into ``self.script`` / ``self.tasks``; either may be ``None``);
- ``repository``: the repository every session works on a fresh copy of (``fresh_copy``);
- ``variants``: what it records, in order, each on a fresh server (``on_fresh_servers``);
- ``run(variant)``: one variant's sessions, registered with ``_register`` as they finish; the
  default ``record()`` runs every variant on a fresh server, then ``finish()`` (an experiment that
  records otherwise overrides ``record``);
- ``main`` / ``replay_recorder``: its command line (``record_on_course_server``) and how the offline
  replay builds it (tests/test_replay.py); a module exports them as
  ``main, replay_recorder = RECORDER.main, RECORDER.replay_recorder`` and overrides them only when
  its command line or its constructor differs.

This module also holds what every experiment's command line needs: the provenance of a
recording, launching the course's llama-server, and running a recorder so that a failure marks
the recording incomplete. The experiments themselves live in the chapters
(``chapters/<chapter>/experiments``) and register there (``prefixlab.recording.experiments``).
"""
from __future__ import annotations

import argparse
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from miniagent.memory import MemoryStore
from miniagent.model import ModelError
from miniagent.session import Session
from miniagent.confined import ConfinedWorkspace

from prefixlab.paths import CHAT_TEMPLATE, REPO_ROOT, TOKENIZER
from prefixlab.serving.server import sha256_file
from prefixlab.serving.state_size import kv_state_size

from .agent_source import agent_provenance
from .chat_client import RecordingChatModel, RequestRefused, recording_model
from .format import FORMAT, is_request, write_manifest
from .policy import load_script, load_tasks, monotonic_clock
from .repository import Repository


class Recorder:
    """Runs the sessions, keeps the global order of requests, writes the manifest as it goes."""

    experiment: str = ""                 # the manifest's "experiment"; every subclass names its own
    script_file: Path | None = None      # scripted assistant turns (YAML), loaded into self.script
    tasks_file: Path | None = None       # task texts (YAML), loaded into self.tasks
    repository: Repository | None = None  # what fresh_copy copies
    variants: tuple[str, ...] = ()       # what record() runs, in order
    variant_label: str = "variant"       # what the log calls one of them
    server_args: tuple[str, ...] = ()    # the course server's flags after its defaults (``main``)

    def __init__(self, out: Path, connect, restart, provenance: dict, model_name: str, log=print):
        if not self.experiment:
            raise TypeError(f"{type(self).__name__} must name its experiment (class attribute `experiment`)")
        self.out, self.connect, self.restart, self.log = out, connect, restart, log
        self.model_name = model_name
        self.clock = monotonic_clock()
        self.epoch = 0
        self.work = Path(tempfile.mkdtemp(prefix=f"{self.experiment.lower()}-"))
        self.manifest = {"format": FORMAT, "status": "recording", "experiment": self.experiment, "policy": "scripted",
                         "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                         "provenance": {**provenance, "agent": agent_provenance()}, "sessions": [], "order": []}
        self.script = load_script(self.script_file) if self.script_file else {}
        self.tasks = load_tasks(self.tasks_file) if self.tasks_file else {}

    def model(self) -> RecordingChatModel:
        # Never retried (a retry would hide a request the server may have seen); see chat_client.
        return recording_model(self.connect(), self.model_name, self.log)

    def fresh_copy(self, name: str) -> tuple[ConfinedWorkspace, MemoryStore]:
        """A fresh copy of the experiment's repository and an empty memory, under ``work/<name>``."""
        if self.repository is None:
            raise TypeError(f"{type(self).__name__} has no repository to copy")
        root = self.work / name
        self.repository.copy_to(root / "repo")
        return ConfinedWorkspace(root / "repo"), MemoryStore(root / "home" / "MEMORY.md")

    def on_fresh_servers(self, variants=None, label: str = "variant"):
        """Yield each variant (default: ``self.variants``), restarting the server before every one but the
        first, so each starts in a new epoch with an empty cache."""
        for i, variant in enumerate(self.variants if variants is None else variants):
            if i:
                self.epoch = self.restart(self.epoch)
            self.log(f"{label} {variant} (epoch {self.epoch})")
            yield variant

    def _register(self, info: dict, session: Session, first_new: int, sent_at: list[float]) -> None:
        """Add a finished session to the manifest: its leaf, and its requests to the global order.

        A request is a ``model_call`` entry, or a ``compaction`` entry whose summary a model wrote
        (``format.is_request``); ``sent_at`` holds their send times in the same order.
        """
        calls = [e for e in session.entries[first_new:] if is_request(e)]
        assert len(calls) == len(sent_at), "every request must map to one model_call (or compaction) entry"
        info["leaf"] = session.leaf
        self.manifest["sessions"].append(info)
        for entry, t in zip(calls, sent_at):
            self.manifest["order"].append({"session": info["id"], "call": entry["id"], "epoch": self.epoch, "t": t})
        write_manifest(self.out, self.manifest)
        summary = ", ".join(_usage(e) + ("(summary)" if e["type"] == "compaction" else "") for e in calls)
        self.log(f"  {info['id']}: {len(calls)} requests (prompt/cached: {summary})")

    @staticmethod
    def record_refusal(session: Session, refused: RequestRefused, round_no: int) -> dict:
        """Append a request the server refused to ``session``: a ``model_call`` with the request as sent
        and the server's ``error`` instead of a ``response`` (no reply, so the session ends there)."""
        return session.append("model_call", round=round_no, request=refused.request, error=refused.error)

    def run(self, variant: str) -> None:
        raise NotImplementedError(f"{type(self).__name__} must say what it records (run or record)")

    def record(self, **options) -> dict:
        """Every variant, in order, each on a fresh server; then the recording is complete."""
        self.log(f"recording {self.experiment} into {self.out}")
        for variant in self.on_fresh_servers(label=self.variant_label):
            self.run(variant)
        return self.finish()

    @classmethod
    def main(cls, argv: list[str] | None = None, prog: str | None = None) -> int:
        """The experiment's command line, ``PROG OUT [--port N]`` on the course's llama-server; its
        description is the first paragraph of the experiment module's docstring."""
        doc = sys.modules[cls.__module__].__doc__ or cls.__doc__ or ""
        return record_on_course_server(prog or f"python -m {cls.__module__}", doc, cls, argv,
                                       server_args=list(cls.server_args) or None)

    @classmethod
    def replay_recorder(cls, recording, out, connect, restart, log):
        """The recorder that made ``recording``, built as ``main`` builds it, and the options of its
        ``record`` call: what the offline replay (tests/test_replay.py) runs against the recorded answers."""
        return cls(out, connect, restart, recording.provenance, "local", log=log), {}

    def finish(self) -> dict:
        """Mark the recording complete, write its manifest, remove the work folder."""
        self.manifest["status"] = "complete"
        write_manifest(self.out, self.manifest)
        shutil.rmtree(self.work, ignore_errors=True)
        return self.manifest

    def fail(self, err: Exception) -> None:
        self.manifest["status"] = "incomplete"
        self.manifest["error"] = f"{type(err).__name__}: {err}"
        write_manifest(self.out, self.manifest)


def _usage(entry: dict) -> str:
    """prompt/cached of a recorded request, for the log; prompt/refused for one the server refused."""
    if "error" in entry:
        return f"{entry['error']['body']['error'].get('n_prompt_tokens', '?')}/refused"
    usage = entry["response"]["usage"]
    return f"{usage['prompt_tokens']}/{(usage.get('prompt_tokens_details') or {}).get('cached_tokens', '-')}"


def command_line(prog: str, argv: list[str] | None = None) -> str:
    """The command a recording stores as its ``recorder.command``: ``prog`` and its arguments."""
    return f"{prog} " + " ".join(sys.argv[1:] if argv is None else argv)


def base_provenance(template: Path, tokenizer: Path, command: str | None = None) -> dict:
    """The template, tokenizer and recorder parts of a recording's provenance.

    ``command`` is what made the recording (``command_line``); default: this process's command line.
    """
    return {
        "chat_template": {"path": str(template.relative_to(REPO_ROOT)) if template.is_relative_to(REPO_ROOT)
                          else template.name, "sha256": sha256_file(template),
                          "text": template.read_text(encoding="utf-8")},
        "tokenizer": {"path": str(tokenizer.relative_to(REPO_ROOT)) if tokenizer.is_relative_to(REPO_ROOT)
                      else tokenizer.name, "sha256": sha256_file(tokenizer) if tokenizer.exists() else "missing"},
        "recorder": {"python": platform.python_version(), "platform": platform.platform(terse=True),
                     "command": command or " ".join(["python", *sys.argv])},
    }


def llama_server_provenance(server) -> dict:
    """The server, model and template parts of a recording's provenance, from a running LlamaServer.

    ``kv_state`` is the measured size of a cached prompt's state: the llama.cpp rule needs it to
    predict when ``--cache-ram`` evicts (prefixlab.serving.state_size; measured once per model).
    """
    prov = server.provenance()
    return {
        "server": {"kind": "llama-server", "restarts": True, **prov["server"], "flags": prov["flags"],
                   "props": prov["props"], "platform": prov["platform"],
                   "kv_state": kv_state_size(server.binary, server.model, server.cache, server.log)},
        "model": {"name": "SmolLM2-135M-Instruct (Q4_1 GGUF)", **prov["model"]},
        "chat_template": {k: v for k, v in prov["chat_template"].items() if k != "file"}
        | {"path": str(server.chat_template.relative_to(REPO_ROOT))
           if server.chat_template.is_relative_to(REPO_ROOT) else server.chat_template.name},
    }


def launch_llama_server(provenance: dict, port: int = 0, template: Path = CHAT_TEMPLATE,
                        extra_args: list[str] | None = None):
    """Start the course's llama-server, add its provenance, and return (server, restart).

    ``restart(epoch)`` stops and starts it again (an empty cache) and returns the next epoch.
    """
    from prefixlab.serving.server import LlamaServer, free_port

    server = LlamaServer(port=port or free_port(), chat_template=template, extra_args=extra_args or []).start()
    provenance.update(llama_server_provenance(server))

    def restart(epoch: int) -> int:
        server.stop()
        server.start()
        return epoch + 1

    return server, restart


def run_recording(prog: str, recorder: Recorder, server=None, **options) -> int:
    """``recorder.record(**options)``; on failure the recording is marked incomplete.

    The launched server, if any, is stopped whatever happens. Returns the command's exit code.
    """
    started = time.monotonic()
    try:
        manifest = recorder.record(**options)
    except (ModelError, OSError, RuntimeError) as err:
        recorder.fail(err)
        print(f"{prog}: error: {err}\nthe recording in {recorder.out} is marked incomplete", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()
    print(f"done: {len(manifest['order'])} requests in {len(manifest['sessions'])} sessions, "
          f"{time.monotonic() - started:.0f} s -> {recorder.out}")
    return 0


def record_on_course_server(prog: str, doc: str, make_recorder, argv=None,
                            server_args: list[str] | None = None) -> int:
    """The command line of an experiment recorded on the course's llama-server.

    ``<prog> OUT [--port N]``: launch the server (``server_args`` come after its default flags), build
    the recorder with ``make_recorder(out, connect, restart, provenance, model_name)`` and record into OUT.
    ``prog`` is the command as typed (``python -m prefixlab record NAME`` or an old module name);
    the recording stores it with the arguments.
    """
    p = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    p.add_argument("out", type=Path, help="recording directory to create (must not exist)")
    p.add_argument("--port", type=int, default=0, help="port for the launched server (default: a free one)")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    if args.out.exists():
        p.error(f"{args.out} exists; choose a new directory (recordings are never overwritten)")
    provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER, command_line(prog, argv))
    server, restart = launch_llama_server(provenance, args.port, extra_args=server_args)  # and kv_state
    recorder = make_recorder(args.out, lambda: server.openai_base_url, restart, provenance, "local")
    return run_recording(prog, recorder, server)
