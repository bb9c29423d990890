"""Record T10, the experiment of lesson A6·2: when do the agent's own notes reach the prompt?

    python -m prefixlab record a6-2 data/recordings/t10-smollm2-llamacpp
    python -m prefixlab.record_t10 data/recordings/t10-smollm2-llamacpp     # the old name, still works

What it records (all with the scripted policy, every request sent to the server):

- main: groups ``refresh`` and ``frozen``, day 1 then day 2, each group on its own fresh
  copy of the toy repository and its own MEMORY.md (order: refresh d1, refresh d2, frozen d1, frozen d2);
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
import sys
from pathlib import Path

from miniagent.loop import run_task
from miniagent.memory import MemoryStore
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, SystemPrompt, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from chapters.a6.paths import T10_DIR
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER, TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import (Recorder, base_provenance, command_line, launch_llama_server,
                                          run_recording)
from prefixlab.recording.repository import Repository

EXPERIMENT = "T10"
LIVE_MAX_TOKENS = 128  # enough for a tool call or a short answer from the live model
# Designs recorded after all the rest, each on its own fresh server (the first two share epoch 0)
LATER_GROUPS = ("append", "after-tools")


class T10Recorder(Recorder):
    """T10: two memory designs over two days, a fork, the counterfactual refreshes, a live run, two more designs."""

    experiment = EXPERIMENT
    script_file = T10_DIR / "script.yml"
    tasks_file = T10_DIR / "tasks.yml"
    repository = Repository(TOY_REPO)
    variants = ("refresh", "frozen")  # the main groups; LATER_GROUPS come after the rest

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
        for group in self.variants:
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
        return self.finish()


def main(argv=None, prog: str = "python -m prefixlab record a6-2") -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
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
    provenance = base_provenance(args.template.resolve(), args.tokenizer.resolve(), command_line(prog, argv))

    if args.server_url:
        provenance["server"] = {"kind": "external", "url_host": args.server_url.split("/")[2],
                                "flags": [], "restarts": False}
        provenance["model"] = {"name": args.model}
        recorder = T10Recorder(args.out, lambda: args.server_url, lambda epoch: epoch, provenance, args.model)
        server = None
    else:
        extra = ["--cache-ram", str(args.cache_ram)] if args.cache_ram is not None else []
        server, restart = launch_llama_server(provenance, args.port, args.template, extra)
        recorder = T10Recorder(args.out, lambda: server.openai_base_url, restart, provenance, "local")
    return run_recording(prog, recorder, server,
                         counterfactuals=not args.no_counterfactuals, live=not args.no_live)



RECORDER = T10Recorder  # the experiment's recorder (prefixlab.recording.experiments)


def replay_recorder(recording, out, connect, restart, log):
    """The recorder that made ``recording``, built as its command line builds it, and the options of
    its ``record`` call: what the offline replay test (tests/test_replay.py) runs against the
    recorded answers."""
    kinds = {s["kind"] for s in recording.manifest["sessions"]}
    recorder = T10Recorder(out, connect, restart, recording.provenance, "local", log=log)
    # --no-counterfactuals / --no-live leave those sessions out
    return recorder, {"counterfactuals": "counterfactual" in kinds, "live": "live" in kinds}
