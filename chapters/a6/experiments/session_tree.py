"""Record T13, the experiment of lesson A6·4: the session is a tree.

    python -m prefixlab record a6-4 OUT            # every recording, each into OUT/<name>
    python -m prefixlab record a6-4 OUT --only t13-switch-two-slots
    python -m prefixlab.record_t13 OUT             # the old name, still works

Every request goes to the course's llama-server (SmolLM2-135M); the assistant turns are scripted:
T10's day 1 (``data/a6/t10/script.yml``, on a fresh copy of ``data/toy-repo``) plus the branches in
``data/a6/t13/script.yml``. All sessions use memory mode ``frozen`` (group ``frozen``).

``t13-forks-smollm2-llamacpp``: does a fork reuse the prefix it shares with the original?
  Day 1 runs once (session ``day1``, 10 rounds). Then, for every round r = 1 .. 9, a fork goes
  back to the end of round r (its tool result) and continues with another user message (session
  ``fork-r<r>``, 2 requests), as a new branch of the same file ``day1.jsonl``. Each fork meets a
  server that has just run day 1 and nothing else: fork-r1 comes right after day 1; for r >= 2
  the server is restarted (a new epoch, empty cache) and day 1's ten requests are sent again
  unchanged (session ``replay-r<r>``, kind ``replay``) before the fork. The fork runs in the same
  agent process as day 1, so its system prompt is day 1's frozen one; its tools run on a copy of
  the repository brought to the state after round r (the tool calls of rounds 1..r redone).

``t13-switch-<setup>``: what does switching between two branches cost on one server?
  One session file ``switch.jsonl``. Day 1's round 1 is the trunk (session ``trunk``); day 1 goes
  on as branch a (session ``branch-a``, rounds 2..10); branch b (``branch-b``) is forked after the
  trunk with its own user message -- think of a second terminal resumed at that entry. The two
  agent loops take turns on one server, one request each: a, b, a, b, ... until b has answered,
  then a finishes alone. Each branch works in its own copy of the repository. Each setup is a
  fresh server with its own flags (SETUPS): one slot without the host prompt cache, one slot with
  it, two slots (slot picked by prompt similarity, the default), two slots picked by LRU.
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

from miniagent.agents_md import read_agents_md
from miniagent.loop import run_task
from miniagent.memory import MemoryStore
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from chapters.a6.paths import T10_DIR, T13_DIR
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER, TOY_REPO
from prefixlab.recording.format import is_request
from prefixlab.recording.policy import ScriptedPolicy, load_script
from prefixlab.recording.recorder import (Recorder, base_provenance, command_line, launch_llama_server,
                                          run_recording)
from prefixlab.recording.repository import Repository

EXPERIMENT = "T13"
GROUP = "frozen"  # the memory design of every T13 session (miniagent --mode)
FORKS = "t13-forks-smollm2-llamacpp"
# name -> (setup, llama-server flags added to the course's; later flags win over the defaults)
SETUPS = {
    "t13-switch-one-slot": ("one-slot", ["--cache-ram", "0"]),
    "t13-switch-host-cache": ("host-cache", []),
    "t13-switch-two-slots": ("two-slots", ["-np", "2"]),
    "t13-switch-two-slots-lru": ("two-slots-lru", ["-np", "2", "--slot-prompt-similarity", "0"]),
}
NAMES = (FORKS, *SETUPS)
TURN_TIMEOUT = 900  # seconds a branch waits for its turn before the recording is called stuck


def model_calls(path: list[dict]) -> list[dict]:
    return [e for e in path if e["type"] == "model_call"]


def branch_point(path: list[dict], after_round: int) -> str:
    """Id of the last entry of round ``after_round`` on ``path``: the parent of the next round's call."""
    calls = model_calls(path)
    if not 1 <= after_round < len(calls):
        raise ValueError(f"cannot branch after round {after_round}: the path has {len(calls)} rounds")
    return calls[after_round]["parentId"]


class T13Recorder(Recorder):
    """The recorder shared by both experiments: T10's day 1, T13's branches."""

    experiment = EXPERIMENT
    script_file = T10_DIR / "script.yml"  # day 1 is T10's: its script, task and repository
    tasks_file = T10_DIR / "tasks.yml"
    repository = Repository(TOY_REPO)
    variants = NAMES

    def __init__(self, out: Path, connect, restart, provenance: dict, model_name: str, log=print):
        super().__init__(out, connect, restart, provenance, model_name, log)
        self.branches = load_script(T13_DIR / "script.yml")

    def state_after(self, name: str, path: list[dict], after_round: int) -> tuple[Workspace, MemoryStore]:
        """A fresh copy of the repository and memory with the tool calls of rounds 1..after_round redone.

        Every redone call must give the tool result recorded on ``path``: the branch then really
        starts from the state its history describes.
        """
        workspace, memory = self.fresh_copy(name)
        toolbox, round_no, pending = Toolbox(workspace, memory), 0, {}
        for entry in path:
            if entry["type"] == "model_call":
                round_no = entry["round"]
            elif entry["type"] == "message" and round_no <= after_round:
                message = entry["message"]
                for call in message.get("tool_calls") or []:
                    pending[call["id"]] = toolbox.call(call["function"]["name"], call["function"]["arguments"])
                if message["role"] == "tool" and pending.pop(message["tool_call_id"]) != message["content"]:
                    raise RuntimeError(f"{name}: redoing round {round_no}'s tool call gave another result "
                                       "than the recorded one; the branch would not start where its history says")
        return workspace, memory

class ForkRecorder(T13Recorder):
    """``t13-forks-smollm2-llamacpp``: day 1, then a fork after every round, each on a server that just ran day 1."""

    def run_day1(self):
        workspace, memory = self.fresh_copy("day1")
        session = Session.open(self.out / "day1.jsonl")
        policy = ScriptedPolicy(self.model(), self.script["day1"], "call_day1", self.clock)
        injection = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
        run_task(self.tasks["day1"].strip(), model=policy, toolbox=Toolbox(workspace, memory), session=session,
                 steps=[injection], max_rounds=len(self.script["day1"]))
        self._register({"id": "day1", "file": "day1.jsonl", "group": GROUP, "day": 1, "kind": "main"},
                       session, 0, policy.sent_at)
        return session, injection

    def run_replay(self, calls: list[dict], r: int) -> None:
        """Send day 1's requests again, unchanged, to a fresh server (session ``replay-r<r>``)."""
        sid = f"replay-r{r}"
        session = Session.open(self.out / f"{sid}.jsonl")
        model, sent_at = self.model(), []
        session.append("system", content=calls[0]["request"]["messages"][0]["content"])
        for entry in calls:
            request = json.loads(json.dumps(entry["request"]))
            messages, tools = request.pop("messages"), request.pop("tools", None)
            request.pop("model", None)
            sent_at.append(self.clock())
            reply = model.complete(messages, tools, **request)
            session.append("model_call", round=entry["round"], request=reply.request, response=reply.response)
        self._register({"id": sid, "file": f"{sid}.jsonl", "group": GROUP, "day": 1, "kind": "replay",
                        "replays": "day1"}, session, 0, sent_at)

    def run_fork_at(self, day1: Session, injection, path: list[dict], r: int) -> None:
        fork = self.branches["fork"]
        branch_at = branch_point(path, r)
        sid = f"fork-r{r}"
        workspace, memory = self.state_after(sid, path, r)
        day1.fork(branch_at)
        first_new = len(day1.entries)
        policy = ScriptedPolicy(self.model(), fork["turns"], f"call_{sid}", self.clock)
        run_task(fork["user"], model=policy, toolbox=Toolbox(workspace, memory), session=day1,
                 steps=[injection], max_rounds=len(fork["turns"]))
        self._register({"id": sid, "file": day1.path.name, "group": GROUP, "day": 1, "kind": "fork",
                        "forked_from": {"session": "day1", "entry": branch_at, "after_round": r}},
                       day1, first_new, policy.sent_at)

    def record(self, **_) -> dict:
        self.log(f"recording {EXPERIMENT} forks into {self.out}")
        day1, injection = self.run_day1()
        path = day1.path_to()
        calls = model_calls(path)
        for r in range(1, len(calls)):
            if r > 1:
                self.epoch = self.restart(self.epoch)
                self.log(f"fork after round {r} (epoch {self.epoch}): day 1 sent again first")
                self.run_replay(calls, r)
            self.run_fork_at(day1, injection, path, r)
        return self.finish()


class Baton:
    """Lets agent loops take turns on one server: ``schedule`` names whose request comes next."""

    def __init__(self, schedule: list[str]):
        self.schedule, self.pos, self.failed = list(schedule), 0, None
        self.cond = threading.Condition()

    def wait(self, name: str) -> None:
        with self.cond:
            ready = self.cond.wait_for(lambda: self.failed is not None or (
                self.pos < len(self.schedule) and self.schedule[self.pos] == name), timeout=TURN_TIMEOUT)
            if self.failed is not None:
                raise RuntimeError(f"branch {name} stopped because another branch failed: {self.failed}")
            if not ready:
                raise RuntimeError(f"branch {name} waited {TURN_TIMEOUT} s for its turn (schedule position "
                                   f"{self.pos} of {len(self.schedule)})")

    def done(self) -> None:
        with self.cond:
            self.pos += 1
            self.cond.notify_all()

    def fail(self, err: Exception) -> None:
        with self.cond:
            self.failed = f"{type(err).__name__}: {err}"
            self.cond.notify_all()


class TakingTurns:
    """A model for miniagent's loop that sends one request per turn of ``baton``.

    A turn is one request and the rest of its round (tools, session entries); it ends when the
    loop asks for its next request, or with :meth:`finish` when the loop returns.
    """

    def __init__(self, policy: ScriptedPolicy, baton: Baton, name: str):
        self.policy, self.baton, self.name, self.turn_open = policy, baton, name, False

    def start(self) -> None:
        self.baton.wait(self.name)
        self.turn_open = True

    def complete(self, messages, tools=None, **params):
        if not self.turn_open:
            self.baton.done()
            self.baton.wait(self.name)
        self.turn_open = False
        return self.policy.complete(messages, tools, **params)

    def finish(self) -> None:
        self.baton.done()


def switch_schedule(a_requests: int, b_requests: int, trunk: int) -> list[str]:
    """Whose request comes next: the trunk (a's first rounds), then a, b, a, b, ..., then the rest of a."""
    a_left, order = a_requests - trunk, ["a"] * trunk
    for i in range(max(a_left, b_requests)):
        order += (["a"] if i < a_left else []) + (["b"] if i < b_requests else [])
    return order


class SwitchRecorder(T13Recorder):
    """``t13-switch-<setup>``: a trunk, then two branches of one session file taking turns."""

    def __init__(self, out: Path, connect, restart, provenance: dict, model_name: str, setup: str, log=print):
        super().__init__(out, connect, restart, provenance, model_name, log)
        self.setup = setup
        self.manifest["setup"] = setup

    def record(self, **_) -> dict:
        switch = self.branches["switch"]
        trunk, a_turns, b_turns = switch["after_round"], self.script["day1"], switch["turns"]
        schedule = switch_schedule(len(a_turns), len(b_turns), trunk)
        self.manifest["schedule"] = schedule
        file = self.out / "switch.jsonl"
        self.log(f"recording {EXPERIMENT} switch ({self.setup}) into {self.out}: {''.join(schedule)}")
        baton, errors, done = Baton(schedule), [], {}
        policy_a = ScriptedPolicy(self.model(), a_turns, "call_a", self.clock)
        policy_b = ScriptedPolicy(self.model(), b_turns, "call_b", self.clock)

        def run_a():  # day 1: the trunk, then branch a
            workspace, memory = self.fresh_copy("a")
            turns = TakingTurns(policy_a, baton, "a")
            turns.start()
            session = done["a"] = Session.open(file)
            injection = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
            run_task(self.tasks["day1"].strip(), model=turns, toolbox=Toolbox(workspace, memory), session=session,
                     steps=[injection], max_rounds=len(a_turns))
            turns.finish()

        def run_b():  # a second loop, resumed at the end of the trunk, with its own user message
            turns = TakingTurns(policy_b, baton, "b")
            turns.start()  # a has run the trunk and its first branch round by now
            session = Session.open(file)
            at = done["b_at"] = branch_point(session.path_to(), trunk)
            workspace, memory = self.state_after("b", session.path_to(at), trunk)
            session.fork(at)
            done["b_first"] = len(session.entries)
            done["b"] = session
            injection = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
            run_task(switch["user"], model=turns, toolbox=Toolbox(workspace, memory), session=session,
                     steps=[injection], max_rounds=len(b_turns))
            turns.finish()

        def guarded(body):
            def run():
                try:
                    body()
                except Exception as err:  # noqa: BLE001 -- handed to the main thread below
                    errors.append(err)
                    baton.fail(err)
            return run

        threads = [threading.Thread(target=guarded(f), name=f"branch-{n}") for n, f in (("a", run_a), ("b", run_b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        self._register_switch(done, trunk, policy_a.sent_at, policy_b.sent_at)
        return self.finish()

    def _register_switch(self, done: dict, trunk: int, sent_a: list[float], sent_b: list[float]) -> None:
        a, b, at = done["a"], done["b"], done["b_at"]
        calls_a = [e for e in a.entries if is_request(e)]
        calls_b = [e for e in b.entries[done["b_first"]:] if is_request(e)]
        assert len(calls_a) == len(sent_a) and len(calls_b) == len(sent_b), "one entry per request"
        requests = [(t, "trunk" if e["round"] <= trunk else "branch-a", e) for e, t in zip(calls_a, sent_a)]
        requests += [(t, "branch-b", e) for e, t in zip(calls_b, sent_b)]
        common = {"file": "switch.jsonl", "group": GROUP, "day": 1}
        self.manifest["sessions"] = [
            {"id": "trunk", "leaf": at, "kind": "main", "branch": "trunk", **common},
            {"id": "branch-a", "leaf": a.leaf, "kind": "main", "branch": "a", **common},
            {"id": "branch-b", "leaf": b.leaf, "kind": "fork", "branch": "b", **common,
             "forked_from": {"session": "trunk", "entry": at, "after_round": trunk}},
        ]
        self.manifest["order"] = [{"session": sid, "call": e["id"], "epoch": self.epoch, "t": t}
                                  for t, sid, e in sorted(requests, key=lambda item: item[0])]
        for sid in ("trunk", "branch-a", "branch-b"):
            summary = ", ".join(f"{e['response']['usage']['prompt_tokens']}/"
                                f"{e['response']['usage'].get('prompt_tokens_details', {}).get('cached_tokens', '-')}"
                                for _, s, e in sorted(requests, key=lambda item: item[0]) if s == sid)
            self.log(f"  {sid}: prompt/cached {summary}")


def main(argv=None, prog: str = "python -m prefixlab record a6-4") -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="directory to create; each recording goes into OUT/<name>")
    p.add_argument("--only", action="append", choices=NAMES, metavar="NAME",
                   help=f"record only this one (repeatable): {', '.join(NAMES)}")
    p.add_argument("--port", type=int, default=0, help="port for the launched servers (default: a free one)")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    names = args.only or list(NAMES)
    taken = [str(args.out / n) for n in names if (args.out / n).exists()]
    if taken:
        p.error(f"{', '.join(taken)} exists; choose a new directory (recordings are never overwritten)")
    code = 0
    for name in names:
        provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER, command_line(prog, argv))
        setup, flags = SETUPS.get(name, ("forks", []))
        server, restart = launch_llama_server(provenance, args.port, extra_args=flags)
        connect = lambda server=server: server.openai_base_url  # noqa: E731
        if name == FORKS:
            recorder = ForkRecorder(args.out / name, connect, restart, provenance, "local")
        else:
            recorder = SwitchRecorder(args.out / name, connect, restart, provenance, "local", setup)
        code = run_recording(prog, recorder, server) or code
    return code


RECORDER = T13Recorder  # the experiment's recorder (prefixlab.recording.experiments)


def replay_recorder(recording, out, connect, restart, log):
    """The recorder that made ``recording``, built as its command line builds it, and the options of
    its ``record`` call: what the offline replay test (tests/test_replay.py) runs against the
    recorded answers."""
    args = (out, connect, restart, recording.provenance, "local")
    if "setup" in recording.manifest:
        return SwitchRecorder(*args, recording.manifest["setup"], log=log), {}
    return ForkRecorder(*args, log=log), {}
