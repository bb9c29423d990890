"""A7·4 (the parallel half): two children at once on ``-np 2``, and what a slot's share of the context does.

    python -m prefixlab record a7-4-parallel OUT                              # both setups
    python -m prefixlab record a7-4-parallel OUT --only a7-4-parallel-two-slots

Scripted policy (``data/a7/parallel/script.yml``), tools run for real on a fresh copy of ``data/toy-repo``
with ``data/a7/repo-overlay``; miniagent's ``spawn_agent`` (``miniagent/children.py``) makes the children.
Each variant on a fresh server (its own epoch):

- ``parallel``: the parent looks at the plugin list, then one assistant turn holds two ``spawn_agent``
  calls; ``add_children(..., parallel=True)`` runs both children at once, each in its own thread with
  its own session file. The second child's first request is sent only when the server's ``/slots``
  shows the first child's request processing, so the two start in a known order. What the server did
  with them is in its log (below): in the shipped recording it never ran two at once -- each request
  (one generated token) is launched, computed and released in one pass of its loop, and a task that
  arrives during a pass waits for it -- so the children took turns, on the same slot.
- ``sequential``: the same turn, the same children, one after the other (miniagent's default).
- ``parallel-replies`` and ``sequential-replies``: the same, but every child request lets the model
  write up to REPLY_TOKENS tokens (the script still decides the turn; session field ``child_max_tokens``),
  as a real agent's replies take many passes of the server's loop: now the other child's task is
  launched between two passes and the two requests run at once, each on its own slot.
- ``long``: one child reads ten plugins; its prompt grows past one slot's share of the context.

Setups (SETUPS), each a recording: ``two-slots`` (``-c 4096 -np 2``: no unified KV, each slot 2,048
tokens) with every variant, and ``one-slot`` (``-c 4096 -np 1``) with ``long`` and ``parallel-replies`` (one
slot for two children: the later task is deferred until the slot is released). The per-slot
context is read from the server's ``GET /slots`` and kept in ``provenance.server.slots``.

Every request's ``order[]`` item carries what the server itself logged (``-lv 4``; its one loop writes
the lines in the order things happened, each stamped with the time since the server started):
``launched`` (``processing task``), ``done`` (``stop processing``: the slot is released) and ``slot``.
The client's send time ``t`` is not enough: a task that arrives while the loop is decoding waits for
that pass to end, so two requests sent close together may still run one after the other. The log's
launches must match ``order[]`` one to one (same order, same prompt lengths) or the recording stops
as incomplete: nothing is guessed. The llama.cpp rule reads ``launched``/``done`` to model busy slots.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
import urllib.request
from pathlib import Path

from miniagent.children import ChildLimits, add_children, child_entries, open_child
from miniagent.loop import Limits, run_task
from miniagent.model import ModelReply
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a7.paths import PARALLEL_DIR, REPO_OVERLAY
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER, TOY_REPO
from prefixlab.recording.chat_client import RequestRefused
from prefixlab.recording.format import write_manifest
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import (Recorder, base_provenance, command_line, launch_llama_server,
                                          run_recording)
from prefixlab.recording.repository import Repository

EXPERIMENT = "A7-4-parallel"
GROUP = "frozen"
# name -> (setup, llama-server flags added to the course's (later flags win), variants)
SETUPS = {
    "a7-4-parallel-two-slots": ("two-slots", ["-c", "4096", "-np", "2"],
                                ("parallel", "sequential", "parallel-replies", "sequential-replies", "long")),
    "a7-4-parallel-one-slot": ("one-slot", ["-c", "4096", "-np", "1"], ("long", "parallel-replies")),
}
CHILD_ROUNDS = 20
REPLY_TOKENS = 32  # the *-replies variants: each child request lets the model write up to this many tokens
GATE_TIMEOUT_S = 60.0
LOG_WAIT_S = 10.0

STAMP = r"^(\d+)\.(\d+)\.(\d+)\.(\d+) "
LAUNCH = re.compile(STAMP + r".*slot launch_slot_: id +(\d+) \| task (\d+) \| processing task")
PROMPT = re.compile(r"id +(\d+) \| task (\d+) \| new prompt, n_ctx_slot = (\d+), n_keep = \d+, task\.n_tokens = (\d+)")
RELEASE = re.compile(STAMP + r".*slot +release: id +(\d+) \| task (\d+) \| stop processing")


class Turns:
    """Replay only: lets each session send its next request when the recorded global order says so."""

    def __init__(self, sessions: list[str]):
        self.sessions, self.next, self.cond = list(sessions), 0, threading.Condition()

    def wait(self, session: str) -> None:
        with self.cond:
            if not self.cond.wait_for(lambda: self.next >= len(self.sessions) or self.sessions[self.next] == session,
                                      timeout=GATE_TIMEOUT_S):
                raise RuntimeError(f"replay: {session} waited for its turn in vain")

    def advance(self) -> None:
        with self.cond:
            self.next += 1
            self.cond.notify_all()


class TimedPolicy(ScriptedPolicy):
    """The scripted policy, noting each request's send and reply times ([t, done]); a turn may hold
    several tool calls (``calls``); a refusal is kept (``refused``) and raised on, as the loop expects."""

    def __init__(self, model, turns, call_prefix, clock, *, session: str, times: list, gate=None,
                 turns_in_order: Turns | None = None, **params):
        super().__init__(model, turns, call_prefix, clock, **params)
        self.session, self.times, self.gate, self.order = session, times, gate, turns_in_order
        self.refused: RequestRefused | None = None

    def complete(self, messages, tools=None, **params):
        turn = self.turns[0] if self.turns else None
        if self.order:
            self.order.wait(self.session)
        elif self.gate and not self.sent_at:
            self.gate()
        calls = turn.get("calls") if isinstance(turn, dict) else None
        if calls:
            self.turns[0] = {"answer": ""}
        try:
            reply = super().complete(messages, tools, **params)
        except RequestRefused as refused:
            self.times.append([self.sent_at[-1], self.clock()])
            self.refused = refused
            raise
        finally:
            if self.order:
                self.order.advance()
        self.times.append([self.sent_at[-1], self.clock()])
        if calls:
            number = len(self.sent_at)
            message = {"role": "assistant", "content": turn.get("say", ""), "tool_calls": [
                {"id": f"{self.call_prefix}_{number}_{k}", "type": "function",
                 "function": {"name": "spawn_agent", "arguments": json.dumps({**brief, "mode": "fresh"},
                                                                             ensure_ascii=False)}}
                for k, brief in enumerate(calls, start=1)]}
            reply = ModelReply(message, reply.request, reply.response)
        return reply


def log_seconds(m: re.Match) -> float:
    """A log line's stamp (minutes.seconds.milliseconds.microseconds since the server started,
    llama.cpp/common/log.cpp:126-133) in seconds."""
    return round(int(m[1]) * 60 + int(m[2]) + int(m[3]) / 1e3 + int(m[4]) / 1e6, 6)


def server_events(text: str) -> list[tuple]:
    """("launch", task, slot, seconds, n_tokens) and ("release", task, slot, seconds) in the order of the log."""
    events, prompts = [], {}
    for line in text.splitlines():
        if m := LAUNCH.search(line):
            events.append(["launch", int(m[6]), int(m[5]), log_seconds(m), None])
        elif m := PROMPT.search(line):
            prompts[int(m[2])] = int(m[4])
        elif m := RELEASE.search(line):
            events.append(["release", int(m[6]), int(m[5]), log_seconds(m)])
    for event in events:
        if event[0] == "launch":
            event[4] = prompts.get(event[1])
    return [tuple(e) for e in events]


def server_times(items: list[dict], prompt_tokens: list[int], events: list[tuple]) -> list[tuple[int, float, float]]:
    """(slot, launched, done) of each request (``items``: this epoch's order[] items, in send order), from
    the log: its launches must match the items one to one, same order, same prompt lengths, and the
    stamps must follow the log's order; a RuntimeError says where they do not."""
    launches = [e for e in events if e[0] == "launch"]
    releases = {e[1]: e for e in events if e[0] == "release"}
    if len(launches) != len(items):
        raise RuntimeError(f"the server log shows {len(launches)} launched tasks, the recording {len(items)} requests")
    stamps = [e[3] for e in events]
    if stamps != sorted(stamps):
        raise RuntimeError("the server log's stamps go backwards; its order cannot be read as times")
    out = []
    for i, (launch, n) in enumerate(zip(launches, prompt_tokens)):
        if launch[4] is not None and launch[4] != n:
            raise RuntimeError(f"request {i} ({items[i]['session']}) has {n} prompt tokens, but the server's "
                               f"task {launch[1]} launched in its place has {launch[4]}: the arrival order differs")
        if launch[1] not in releases:
            raise RuntimeError(f"the server log has no release of task {launch[1]} (request {i})")
        out.append((launch[2], launch[3], releases[launch[1]][3]))
    # a release and a later launch in the same microsecond: the rule reads "done <= started" as released,
    # which must be what the log says
    position = {(e[0], e[1]): k for k, e in enumerate(events)}
    for r, launch in enumerate(launches):
        for x in range(r):
            if out[x][2] == out[r][1] and position["release", launches[x][1]] > position["launch", launch[1]]:
                raise RuntimeError(f"requests {x} and {r}: a release and a launch in the same microsecond, "
                                   "in the order the times cannot tell")
    return out


class ParallelRecorder(Recorder):
    """A7·4's parallel half: two children at once or in turn, one long child; one server setup."""

    experiment = EXPERIMENT
    script_file = PARALLEL_DIR / "script.yml"
    repository = Repository(TOY_REPO, (REPO_OVERLAY,))

    def __init__(self, *args, setup: str, variants: tuple[str, ...], server=None, replay_order=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.setup = self.manifest["setup"] = setup
        self.variants = variants
        self.server = server            # the launched LlamaServer (None in a replay: no log, no /slots)
        self.replay_order = replay_order
        self.log_at = 0

    # -- the server's own view ------------------------------------------------------------------------

    def slots(self) -> list[dict]:
        with urllib.request.urlopen(f"{self.server.url}/slots", timeout=10) as reply:
            return json.load(reply)

    def gate_on(self, policies: dict) -> callable:
        """Wait until the first child has sent its first request and the server shows it processing."""
        def gate():
            deadline = time.monotonic() + GATE_TIMEOUT_S
            while time.monotonic() < deadline:
                first = policies.get(1)
                if first is not None and first.sent_at:
                    if any(s.get("is_processing") for s in self.slots()):
                        return
                    if first.times:
                        raise RuntimeError("the first child's first request was done before the second child started")
                time.sleep(0.005)
            raise RuntimeError("the server never showed the first child's request processing")
        return gate

    def check_epoch(self, first: int) -> None:
        """Check this epoch's order[] items (from ``first`` on) against the server log; add ``slot``."""
        if self.server is None:
            return
        items = self.manifest["order"][first:]
        prompt_tokens = [self._prompt_tokens(item) for item in items]
        deadline = time.monotonic() + LOG_WAIT_S
        while True:
            with open(self.log_at[0], "rb") as f:
                f.seek(self.log_at[1])
                events = server_events(f.read().decode("utf-8", errors="replace"))
            releases = sum(e[0] == "release" for e in events)
            if releases >= len(items) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        for item, (slot, launched, done) in zip(items, server_times(items, prompt_tokens, events)):
            item.update(slot=slot, launched=launched, done=done)

    def _prompt_tokens(self, item: dict) -> int:
        info = next(s for s in self.manifest["sessions"] if s["id"] == item["session"])
        entry = Session.open(self.out / info["file"]).by_id[item["call"]]
        if "error" in entry:
            return entry["error"]["body"]["error"]["n_prompt_tokens"]
        return entry["response"]["usage"]["prompt_tokens"]

    # -- one parent and its children ------------------------------------------------------------------

    def run_parent(self, sid: str, turns: list[dict], children_turns: dict[int, list[dict]], *, parallel: bool,
                   info: dict, child_params: dict | None = None) -> None:
        workspace, memory = self.fresh_copy(sid)
        session = Session.open(self.out / f"{sid}.jsonl")
        toolbox, times, child_times, policies = Toolbox(workspace, memory), [], {}, {}
        order = Turns(self.replay_order[sid]) if self.replay_order else None

        def model_for(number: int, mode: str):
            child_times[number] = []
            gate = self.gate_on(policies) if parallel and number == 2 and self.server else None
            policies[number] = TimedPolicy(self.model(), children_turns[number], f"call_{sid}_child{number}",
                                           self.clock, session=f"{sid}-child{number}", times=child_times[number],
                                           gate=gate, turns_in_order=order, **(child_params or {}))
            return policies[number]

        agents = add_children(toolbox, session, model_for, log=self.log, parallel=parallel,
                              limits=ChildLimits(depth=1, limits=Limits(max_rounds=CHILD_ROUNDS)))
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)
        policy = TimedPolicy(self.model(), turns, f"call_{sid}", self.clock, session=sid, times=times,
                             turns_in_order=order)
        first = len(self.manifest["order"])
        if self.server is not None:  # this epoch's part of the server's log (a restart may append to the file)
            self.log_at = (self.server.log_path, self.server.log_path.stat().st_size)
        run_task(self.script["task"].strip(), model=policy, toolbox=agents.toolbox, session=session, steps=[design],
                 max_rounds=len(turns), log=self.log)
        if policy.turns:
            raise RuntimeError(f"{sid}: {len(policy.turns)} scripted replies were not used")
        self._add(sid, {"id": sid, "file": session.path.name, "group": GROUP, "day": 1, "kind": "main", **info},
                  session, times)
        for number, entry in enumerate(child_entries(session), start=1):
            child = open_child(session, entry)
            refused = policies[number].refused
            if refused is not None:  # the server refused the child's request: it ends there
                self.record_refusal(child, refused, round_no=len(policies[number].sent_at))
            elif entry["status"] != "done":
                raise RuntimeError(f"{sid}: child {number} ended {entry['status']}")
            self._add(sid, {"id": f"{sid}-child{number}", "file": entry["path"], "group": GROUP, "day": 1,
                            "kind": "child", "child_of": {"session": sid, "entry": entry["id"], "mode": entry["mode"]},
                            **info}, child, child_times[number])
        # the server saw them by time: the children's requests came while the parent waited for its tool
        self.manifest["order"][first:] = sorted(self.manifest["order"][first:], key=lambda item: item["t"])
        self.check_epoch(first)
        write_manifest(self.out, self.manifest)

    def _add(self, sid: str, info: dict, session: Session, times: list) -> None:
        self._register(info, session, 0, [t for t, _ in times])

    def record(self) -> dict:
        s = self.script
        if self.server is not None:
            self.manifest["provenance"]["server"]["slots"] = [{"id": x["id"], "n_ctx": x["n_ctx"]}
                                                               for x in self.slots()]
        for variant in self.on_fresh_servers():
            if variant == "long":
                spawn = {"say": "I will hand the reading to a child.", "tool": "spawn_agent",
                         "args": {**s["long_brief"], "mode": "fresh"}}
                self.run_parent("long", [s["look"], spawn, {"answer": s["long_answer"]}], {1: s["long_child"]},
                                parallel=False, info={"variant": "long"})
            else:
                replies = variant.endswith("-replies")
                self.run_parent(variant, [s["look"], s["pair"], {"answer": s["answer"]}],
                                {1: s["children"][0], 2: s["children"][1]}, parallel=variant.startswith("parallel"),
                                info={"variant": variant, **({"child_max_tokens": REPLY_TOKENS} if replies else {})},
                                child_params={"max_tokens": REPLY_TOKENS} if replies else None)
        return self.finish()


def main(argv=None, prog: str = "python -m prefixlab record a7-4-parallel") -> int:
    """The command line: one recording per setup, each on its own server."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="directory to create; each recording goes into OUT/<name>")
    p.add_argument("--only", action="append", choices=list(SETUPS), metavar="NAME",
                   help=f"record only this one (repeatable): {', '.join(SETUPS)}")
    p.add_argument("--port", type=int, default=0, help="port for the launched servers (default: a free one)")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    names = args.only or list(SETUPS)
    taken = [str(args.out / n) for n in names if (args.out / n).exists()]
    if taken:
        p.error(f"{', '.join(taken)} exists; choose a new directory (recordings are never overwritten)")
    code = 0
    for name in names:
        provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER, command_line(prog, argv))
        setup, flags, variants = SETUPS[name]
        server, restart = launch_llama_server(provenance, args.port, extra_args=flags)
        recorder = ParallelRecorder(args.out / name, lambda server=server: server.openai_base_url, restart,
                                    provenance, "local", setup=setup, variants=variants, server=server)
        code = run_recording(prog, recorder, server) or code
    return code


def replay_recorder(recording, out, connect, restart, log):
    """The recorder that made ``recording`` (tests/test_replay.py): the recorded order of requests is
    kept by letting each session send only when its turn comes (the fake server answers at once)."""
    setup = recording.manifest["setup"]
    variants = next(v for s, _, v in SETUPS.values() if s == setup)
    by_parent: dict[str, list[str]] = {}
    for item in recording.manifest["order"]:
        by_parent.setdefault(item["session"].split("-child")[0], []).append(item["session"])
    return ParallelRecorder(out, connect, restart, recording.provenance, "local", setup=setup, variants=variants,
                            replay_order=by_parent, log=log), {}


RECORDER = ParallelRecorder  # the experiment's recorder (prefixlab.recording.experiments)
