"""Record the T10 experiment with miniagent against a real server.

    python -m prefixlab.record_t10 data/recordings/t10-smollm2-llamacpp

What it records (all with the scripted policy, every request sent to the server):

- main: groups ``refresh`` and ``frozen``, day 1 then day 2, each group on its own fresh
  copy of ``data/t10/repo`` and its own MEMORY.md (order: refresh d1, refresh d2, frozen d1, frozen d2);
- fork: frozen day 1 continued from the entry after round 3 with another user message;
- counterfactual k = 1..N-1: frozen day 1's requests resent with the system prompt that a
  refresh right after round k would have produced (rounds after k carry the note); with a
  server we launch, each k gets a fresh server (a new *epoch*: empty cache).

- live: day 1 once more with no script: the model's own replies drive the loop (on a fresh
  server). A small model may answer in prose at once; that is recorded as it happened.
- two more designs, groups ``append`` and ``after-tools`` (see miniagent/variants/): day 1
  then day 2 each, each group on a fresh server of its own, after everything above, so the
  requests above are sent exactly as before the two groups existed.

With ``--server-url`` it talks to a server you started yourself (mlx_lm.server, Ollama,
vLLM, another llama-server): nothing is restarted, so the counterfactuals share one cache.
"""
from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from miniagent.loop import run_task
from miniagent.modes import for_mode
from miniagent.memory import MemoryStore
from miniagent.model import ModelError
from miniagent.prompt import BASE_PROMPT, SystemPrompt, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from prefixlab.paths import CHAT_TEMPLATE, REPO_ROOT, T10_DIR, TOKENIZER
from prefixlab.serving.server import sha256_file
from prefixlab.serving.state_size import kv_state_size

from .agent_source import agent_provenance
from .chat_client import RecordingChatModel, recording_model
from .format import FORMAT, is_request, write_manifest
from .policy import ScriptedPolicy, load_script, load_tasks, monotonic_clock

LIVE_MAX_TOKENS = 128  # enough for a tool call or a short answer from the live model
# Designs recorded after all the rest, each on its own fresh server (the first two share epoch 0)
LATER_GROUPS = ("append", "after-tools")


class Recorder:
    """Runs the sessions, keeps the global order of requests, writes the manifest as it goes."""

    def __init__(self, out: Path, connect, restart, provenance: dict, model_name: str, log=print):
        self.out, self.connect, self.restart, self.log = out, connect, restart, log
        self.model_name = model_name
        self.clock = monotonic_clock()
        self.epoch = 0
        self.work = Path(tempfile.mkdtemp(prefix="t10-"))
        self.manifest = {"format": FORMAT, "status": "recording", "experiment": "T10", "policy": "scripted",
                         "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                         "provenance": {**provenance, "agent": agent_provenance()}, "sessions": [], "order": []}
        self.script, self.tasks = load_script(), load_tasks()

    def model(self) -> RecordingChatModel:
        # Never retried (a retry would hide a request the server may have seen); see chat_client.
        return recording_model(self.connect(), self.model_name, self.log)

    def fresh_copy(self, name: str) -> tuple[Workspace, MemoryStore]:
        root = self.work / name
        shutil.copytree(T10_DIR / "repo", root / "repo")
        return Workspace(root / "repo"), MemoryStore(root / "home" / "MEMORY.md")

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
        summary = ", ".join(f"{e['response']['usage']['prompt_tokens']}/"
                            f"{(e['response']['usage'].get('prompt_tokens_details') or {}).get('cached_tokens', '-')}"
                            + ("(summary)" if e["type"] == "compaction" else "") for e in calls)
        self.log(f"  {info['id']}: {len(calls)} requests (prompt/cached: {summary})")

    def run_day(self, group: str, day: int, workspace: Workspace, memory: MemoryStore) -> Session:
        sid = f"{group}-day{day}"
        session = Session.open(self.out / f"{sid}.jsonl")
        policy = ScriptedPolicy(self.model(), self.script[f"day{day}"], f"call_{sid}", self.clock)
        injection = for_mode(group, BASE_PROMPT, read_agents_md(workspace.root), memory)
        run_task(self.tasks[f"day{day}"].strip(), model=policy, toolbox=Toolbox(workspace, memory),
                 session=session, steps=[injection], max_rounds=len(self.script[f"day{day}"]))
        self._register({"id": sid, "file": f"{sid}.jsonl", "group": group, "day": day, "kind": "main"},
                       session, 0, policy.sent_at)
        return session

    def run_fork(self, day1: Session, group: str) -> None:
        fork = self.script["fork"]
        calls = [e for e in day1.path_to() if e["type"] == "model_call"]
        # Branch at the last entry of round `after_round` (its tool result), before the next call.
        path = day1.path_to()
        branch_at = path[path.index(calls[fork["after_round"]]) - 1]["id"]
        workspace, memory = self.fresh_copy(f"{group}-fork")  # rounds 1..3 changed no file
        day1.fork(branch_at)
        first_new = len(day1.entries)
        sid = f"{group}-day1-fork"
        policy = ScriptedPolicy(self.model(), fork["turns"], f"call_{sid}", self.clock)
        injection = for_mode(group, BASE_PROMPT, read_agents_md(workspace.root), memory)
        run_task(fork["user"], model=policy, toolbox=Toolbox(workspace, memory), session=day1,
                 steps=[injection], max_rounds=len(fork["turns"]))
        self._register({"id": sid, "file": day1.path.name, "group": group, "day": 1, "kind": "fork",
                        "forked_from": {"session": f"{group}-day1", "entry": branch_at,
                                        "after_round": fork["after_round"]}}, day1, first_new, policy.sent_at)

    def run_counterfactual(self, history: list[dict], note_system: str, k: int) -> None:
        """Resend the requests on ``history`` (a session path); from round k+1 on with ``note_system``."""
        sid = f"counterfactual-k{k}"
        session = Session.open(self.out / f"{sid}.jsonl")
        model = self.model()
        sent_at = []
        calls = [e for e in history if e["type"] == "model_call"]
        session.append("system", content=calls[0]["request"]["messages"][0]["content"])
        for entry in calls:
            request = json.loads(json.dumps(entry["request"]))
            messages, tools = request.pop("messages"), request.pop("tools", None)
            if entry["round"] > k:
                if entry["round"] == k + 1:
                    session.append("system_refresh", content=note_system)
                messages[0] = {"role": "system", "content": note_system}
            request.pop("model", None)
            sent_at.append(self.clock())
            reply = model.complete(messages, tools, **request)
            session.append("model_call", round=entry["round"], request=reply.request, response=reply.response)
        self._register({"id": sid, "file": f"{sid}.jsonl", "group": "refresh", "day": 1,
                        "kind": "counterfactual", "k": k}, session, 0, sent_at)

    def run_live(self, group: str = "frozen") -> None:
        """Day 1 with the model's own replies driving the loop (no script), on a fresh server."""
        sid = f"live-{group}-day1"
        workspace, memory = self.fresh_copy(sid)
        session = Session.open(self.out / f"{sid}.jsonl")
        model = self.model()
        sent_at = []

        class Live:  # the real model, timestamped like the scripted policy
            def complete(_, messages, tools=None, **params):
                sent_at.append(self.clock())
                return model.complete(messages, tools, max_tokens=LIVE_MAX_TOKENS, temperature=0)

        injection = for_mode(group, BASE_PROMPT, read_agents_md(workspace.root), memory)
        run_task(self.tasks["day1"].strip(), model=Live(), toolbox=Toolbox(workspace, memory), session=session,
                 steps=[injection], max_rounds=len(self.script["day1"]))
        self._register({"id": sid, "file": f"{sid}.jsonl", "group": group, "day": 1, "kind": "live"},
                       session, 0, sent_at)

    def record(self, counterfactuals: bool = True, live: bool = True) -> dict:
        self.log(f"recording T10 into {self.out} (epoch {self.epoch})")
        days = {}
        for group in ("refresh", "frozen"):
            workspace, memory = self.fresh_copy(group)
            days[group] = self.run_day(group, 1, workspace, memory)
            self.run_day(group, 2, workspace, memory)
        frozen_day1 = days["frozen"].path_to()  # before the fork moves the session's leaf
        self.run_fork(days["frozen"], "frozen")
        if counterfactuals:
            note = MemoryStore(self.work / "frozen" / "home" / "MEMORY.md").text()
            agents = read_agents_md(self.work / "frozen" / "repo")
            note_system = SystemPrompt(BASE_PROMPT, agents, note).text
            rounds = [e["round"] for e in frozen_day1 if e["type"] == "model_call"]
            for k in range(1, len(rounds)):
                self.epoch = self.restart(self.epoch)
                self.log(f"counterfactual k={k} (epoch {self.epoch})")
                self.run_counterfactual(frozen_day1, note_system, k)
        if live:
            self.epoch = self.restart(self.epoch)
            self.log(f"live run (epoch {self.epoch}): the model's own replies drive the loop")
            self.run_live()
        for group in LATER_GROUPS:
            self.epoch = self.restart(self.epoch)
            self.log(f"group {group} (epoch {self.epoch})")
            workspace, memory = self.fresh_copy(group)
            self.run_day(group, 1, workspace, memory)
            self.run_day(group, 2, workspace, memory)
        self.manifest["status"] = "complete"
        write_manifest(self.out, self.manifest)
        shutil.rmtree(self.work, ignore_errors=True)
        return self.manifest

    def fail(self, err: Exception) -> None:
        self.manifest["status"] = "incomplete"
        self.manifest["error"] = f"{type(err).__name__}: {err}"
        write_manifest(self.out, self.manifest)


def base_provenance(template: Path, tokenizer: Path, argv: list[str] | None = None) -> dict:
    return {
        "chat_template": {"path": str(template.relative_to(REPO_ROOT)) if template.is_relative_to(REPO_ROOT)
                          else template.name, "sha256": sha256_file(template),
                          "text": template.read_text(encoding="utf-8")},
        "tokenizer": {"path": str(tokenizer.relative_to(REPO_ROOT)) if tokenizer.is_relative_to(REPO_ROOT)
                      else tokenizer.name, "sha256": sha256_file(tokenizer) if tokenizer.exists() else "missing"},
        "recorder": {"python": platform.python_version(), "platform": platform.platform(terse=True),
                     "command": "python -m prefixlab.record_t10 " + " ".join(sys.argv[1:] if argv is None else argv)},
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


def record_on_course_server(prog: str, doc: str, make_recorder, argv=None) -> int:
    """The command line of an experiment recorded on the course's llama-server (T11, T12, T14).

    ``python -m prefixlab.<prog> OUT [--port N]``: launch the server, build the recorder with
    ``make_recorder(out, connect, restart, provenance, model_name)`` and record into OUT.
    """
    p = argparse.ArgumentParser(prog=f"python -m prefixlab.{prog}", description=doc.split("\n\n")[0])
    p.add_argument("out", type=Path, help="recording directory to create (must not exist)")
    p.add_argument("--port", type=int, default=0, help="port for the launched server (default: a free one)")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    if args.out.exists():
        p.error(f"{args.out} exists; choose a new directory (recordings are never overwritten)")
    provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER, argv)
    provenance["recorder"]["command"] = f"python -m prefixlab.{prog} " + " ".join(argv)
    server, restart = launch_llama_server(provenance, args.port)  # provenance gains kv_state too
    recorder = make_recorder(args.out, lambda: server.openai_base_url, restart, provenance, "local")
    return run_recording(prog, recorder, server)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m prefixlab.record_t10", description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="recording directory to create (must not exist)")
    p.add_argument("--server-url", help="use a server you started (base URL ending in /v1); default: launch llama-server")
    p.add_argument("--model", default="local", help="model name for --server-url (default: %(default)s)")
    p.add_argument("--tokenizer", type=Path, default=TOKENIZER,
                   help="tokenizer.json of the served model, for the offline check")
    p.add_argument("--template", type=Path, default=CHAT_TEMPLATE, help="chat template the server renders with")
    p.add_argument("--port", type=int, default=0, help="port for the launched server (default: a free one)")
    p.add_argument("--no-counterfactuals", action="store_true")
    p.add_argument("--no-live", action="store_true", help="skip the run where the model's own replies drive the loop")
    p.add_argument("--cache-ram", type=int, metavar="MIB",
                   help="host prompt cache size of the launched server (default: the course's 8192); a small "
                        "one (e.g. 64) makes the cache evict")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    if args.out.exists():
        p.error(f"{args.out} exists; choose a new directory (recordings are never overwritten)")
    provenance = base_provenance(args.template.resolve(), args.tokenizer.resolve(), argv)

    if args.server_url:
        provenance["server"] = {"kind": "external", "url_host": args.server_url.split("/")[2],
                                "flags": [], "restarts": False}
        provenance["model"] = {"name": args.model}
        recorder = Recorder(args.out, lambda: args.server_url, lambda epoch: epoch, provenance, args.model)
        server = None
    else:
        extra = ["--cache-ram", str(args.cache_ram)] if args.cache_ram is not None else []
        server, restart = launch_llama_server(provenance, args.port, args.template, extra)
        recorder = Recorder(args.out, lambda: server.openai_base_url, restart, provenance, "local")
    return run_recording("record_t10", recorder, server,
                         counterfactuals=not args.no_counterfactuals, live=not args.no_live)


if __name__ == "__main__":
    sys.exit(main())
