"""Record chapter A7's experiments: a parent agent and its child agents on the course's llama-server.

    python -m prefixlab record a7-1 OUT                      # A7·1: explore alone or hand it to a child
    python -m prefixlab record a7-2 OUT                      # A7·2: fresh or forked child, three setups
    python -m prefixlab record a7-2 OUT --only a7-2-child-one-slot

Scripted policy as in A5/A6 (``data/a7/delegation/script.yml``): every request of the parent and
of its children goes to the real server, the assistant turns come from the script, the tools run
for real on a fresh copy of ``data/toy-repo`` with ``data/a7/repo-overlay`` (30 small plugins).
The child is miniagent's ``spawn_agent`` tool (``miniagent/children.py``): its own loop and its own
session file ``<parent>.children/<id>.jsonl``, a session of kind ``child`` in the manifest with
``child_of`` (the parent session, its ``child`` entry, the mode). Every session uses memory mode
``frozen`` (its memory is empty here).

``a7-1-explore-smollm2-llamacpp`` (``-c 4096 -np 1``): variant ``alone``, the agent reads the 30
plugins itself; variant ``delegate``, it hands the reading to one fresh child with a brief and
reads the child's report. Each variant on a fresh server (its own epoch). Parent and child run
miniagent's Compactor with one budget (window - reserve, counted exactly with the server's
template and tokenizer); the served model writes each summary (at most ``summary_max_tokens``).

``a7-2-child-<setup>``: the parent's first rounds, one child with the ``check_brief`` (variant
``fresh`` or ``fork``, each on a fresh server), then the parent's last rounds. Setups (SETUPS):
one slot without host cache, one slot with it (the default 8 GiB), two slots.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from miniagent.children import ChildLimits, add_children, child_entries, open_child
from miniagent.compaction import Compactor, model_summariser, threshold
from miniagent.loop import Limits, run_task
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox

from chapters.a7.paths import DELEGATION_DIR, REPO_OVERLAY
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER, TOY_REPO
from prefixlab.recording.format import write_manifest
from prefixlab.cache.tokenizer import exact_counter
from prefixlab.recording.policy import StampedPolicy, StampedModel
from prefixlab.recording.recorder import (Recorder, base_provenance, command_line, launch_llama_server,
                                          record_on_course_server, run_recording)
from prefixlab.recording.repository import Repository

EXPERIMENT = "A7"  # the recorders below name their lesson: A7-1, A7-2
GROUP = "frozen"
EXPLORE = "a7-1-explore-smollm2-llamacpp"
EXPLORE_ARGS = ["-c", "4096", "-np", "1"]
# name -> (setup, llama-server flags added to the course's; later flags win)
SETUPS = {
    "a7-2-child-one-slot": ("one-slot", ["--cache-ram", "0"]),
    "a7-2-child-host-cache": ("host-cache", []),
    "a7-2-child-two-slots": ("two-slots", ["-np", "2"]),
}
CHILD_ROUNDS = 40  # a child's loop limit here (A7·3 measures what the limits do)


class DelegationRecorder(Recorder):
    """A parent agent, optionally with the spawn_agent tool; its children registered as sessions."""

    experiment = EXPERIMENT
    script_file = DELEGATION_DIR / "script.yml"
    repository = Repository(TOY_REPO, (REPO_OVERLAY,))

    def compactor(self, order: list[float], tools: list[dict]) -> Compactor:
        s = self.script
        summary_model = StampedModel(self.model(), order, self.clock, max_tokens=s["summary_max_tokens"],
                                     temperature=0)
        return Compactor(threshold(s["window"], s["reserve"]), model_summariser(summary_model),
                         keep_rounds=s["keep_rounds"], count_tokens=exact_counter(tools))

    def run_parent(self, sid: str, turns: list[dict], children_turns: dict[int, list[dict]], *,
                   compact: bool, info: dict, child_rounds: int = CHILD_ROUNDS, allow_stopped: bool = False) -> Session:
        """One parent session: ``turns`` scripted; child n (1, 2, ...) answers ``children_turns[n]``."""
        workspace, memory = self.fresh_copy(sid)
        session = Session.open(self.out / f"{sid}.jsonl")
        toolbox, order, child_orders = Toolbox(workspace, memory), [], {}

        def model_for(number: int, mode: str):
            child_orders[number] = []
            return StampedPolicy(self.model(), children_turns[number], f"call_{sid}_child{number}", self.clock,
                                 order=child_orders[number])

        def steps_for(number: int, mode: str):
            return [self.compactor(child_orders[number], agents.toolbox.definitions)] if compact else []

        agents = add_children(toolbox, session, model_for, steps_for=steps_for, log=self.log,
                              limits=ChildLimits(depth=1, limits=Limits(max_rounds=child_rounds)))
        tools = agents.toolbox if children_turns else toolbox
        design = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory)
        steps = ([self.compactor(order, tools.definitions)] if compact else []) + [design]
        policy = StampedPolicy(self.model(), turns, f"call_{sid}", self.clock, order=order)
        run_task(self.script["task"].strip(), model=policy, toolbox=tools, session=session, steps=steps,
                 max_rounds=len(turns), log=self.log)
        if policy.turns:
            raise RuntimeError(f"{sid}: {len(policy.turns)} scripted replies were not used")
        self._register({"id": sid, "file": session.path.name, "group": GROUP, "day": 1, "kind": "main", **info},
                       session, 0, order)
        for number, entry in enumerate(child_entries(session), start=1):
            child = open_child(session, entry)
            if entry["status"] != "done" and not (allow_stopped and entry["status"] == "stopped"):
                raise RuntimeError(f"{sid}: child {number} ended {entry['status']}")
            self._register({"id": f"{sid}-child{number}", "file": entry["path"], "group": GROUP, "day": 1,
                            "kind": "child", "child_of": {"session": sid, "entry": entry["id"],
                                                          "mode": entry["mode"]}, **info},
                           child, 0, child_orders[number])
        # the server saw them by time: the child's requests came while the parent waited for its tool
        self.manifest["order"].sort(key=lambda item: (item["epoch"], item["t"]))
        write_manifest(self.out, self.manifest)
        return session


def spawn_turn(brief: dict, mode: str, say: str) -> dict:
    return {"say": say, "tool": "spawn_agent", "args": {**brief, "mode": mode}}


class ExploreRecorder(DelegationRecorder):
    """A7·1: read 30 plugins alone (compacting on the way) or hand them to a fresh child."""

    experiment = "A7-1"
    variants = ("alone", "delegate")

    def record(self) -> dict:
        s = self.script
        self.manifest["compaction"] = {"window": s["window"], "reserve": s["reserve"],
                                       "budget": threshold(s["window"], s["reserve"]),
                                       "keep_rounds": s["keep_rounds"], "summary_max_tokens": s["summary_max_tokens"]}
        answer = {"answer": s["answer"]}
        for variant in self.on_fresh_servers():
            if variant == "alone":
                self.run_parent("alone", s["before"] + s["reads"] + [answer], {}, compact=True,
                                info={"variant": "alone"})
            else:
                spawn = spawn_turn(s["explore_brief"], "fresh", "I will hand the reading to an explorer.")
                self.run_parent("delegate", s["before"] + [spawn, answer],
                                {1: s["reads"] + [{"answer": s["report"]}]}, compact=True,
                                info={"variant": "delegate"})
        return self.finish()


class ChildRecorder(DelegationRecorder):
    """A7·2: one child, fresh or forked, between the parent's rounds; one server setup."""

    experiment = "A7-2"
    variants = ("fresh", "fork")

    def __init__(self, *args, setup: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.setup = self.manifest["setup"] = setup

    def record(self) -> dict:
        s = self.script
        for mode in self.on_fresh_servers():
            spawn = spawn_turn(s["check_brief"], mode, "I will ask a child to look at the checks.")
            self.run_parent(mode, s["before"][:3] + [spawn] + s["after"], {1: s["check_child"]}, compact=False,
                            info={"variant": mode})
        return self.finish()


class LimitsRecorder(DelegationRecorder):
    """A7·3: a vague brief with no useful limit, the same child capped, a clear brief; one server each."""

    experiment = "A7-3"
    variants = ("runaway", "capped", "clear")

    def record(self) -> dict:
        s = self.script
        reads = s["reads"]
        wander = reads + [{"tool": "list_files", "args": {"path": "plugins"}}] + reads[:5]
        # the clear brief names no file: the child searches, then reads what the search returned
        clear = [{"tool": "run_command", "args": {"command": s["clear_search"]}}] + [
            {"tool": "read_file", "args": {"path": f"plugins/{name}"}} for name in s["clear_reads"]]
        for variant in self.on_fresh_servers():
            brief = s["clear_brief"] if variant == "clear" else s["vague_brief"]
            turns = clear + [{"answer": s["report"]}] if variant == "clear" else wander + [{"answer": s["report"]}]
            rounds = s["capped_rounds"] if variant == "capped" else CHILD_ROUNDS
            spawn = spawn_turn(brief, "fresh", "I will ask a child to look into the plugins.")
            self.run_parent(variant, s["before"][:1] + [spawn, {"answer": s["answer"]}], {1: turns}, compact=False,
                            info={"variant": variant, "child_max_rounds": rounds}, child_rounds=rounds,
                            allow_stopped=variant == "capped")
        return self.finish()


def explore_main(argv=None, prog: str = "python -m prefixlab record a7-1") -> int:
    """A7·1's command line (chapters/a7/experiments/explore.py)."""
    return record_on_course_server(prog, __doc__, ExploreRecorder, argv, server_args=EXPLORE_ARGS)


def child_main(argv=None, prog: str = "python -m prefixlab record a7-2") -> int:
    """A7·2's command line (chapters/a7/experiments/fresh_or_fork.py): one recording per setup."""
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
        setup, flags = SETUPS[name]
        server, restart = launch_llama_server(provenance, args.port, extra_args=flags)
        recorder = ChildRecorder(args.out / name, lambda server=server: server.openai_base_url, restart,
                                 provenance, "local", setup=setup)
        code = run_recording(prog, recorder, server) or code
    return code


def limits_main(argv=None, prog: str = "python -m prefixlab record a7-3") -> int:
    """A7·3's command line (chapters/a7/experiments/limits.py)."""
    return record_on_course_server(prog, __doc__, LimitsRecorder, argv)


def replay_recorder(recording, out, connect, restart, log):
    """The recorder that made ``recording``, built as its command line builds it (tests/test_replay.py)."""
    args = (out, connect, restart, recording.provenance, "local")
    if recording.manifest["experiment"] == "A7-3":
        return LimitsRecorder(*args, log=log), {}
    if "setup" in recording.manifest:
        return ChildRecorder(*args, setup=recording.manifest["setup"], log=log), {}
    return ExploreRecorder(*args, log=log), {}

