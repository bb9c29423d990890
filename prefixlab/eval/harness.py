"""The evaluation harness: one (task, design, seed) in a fresh copy of the task's workspace, the hidden
check, one result row; a whole plan of runs as a recording, in slices, resumable.

A run: copy the task's starting workspace to a new temporary folder; run miniagent's loop on the
task text under the design; then, with the agent gone, check the workspace with the task's hidden
check (``check_runner``, a separate process, outside the workspace) and write one row to
``results.jsonl``. The row's ``why`` says why it passed or failed, in this order of precedence:

- ``workspace damaged: <file> deleted|changed``: a protected file (the visible checks, AGENTS.md) is not
  as it was, so the check's verdict would mean nothing;
- ``check crashed: <reason>``: the check itself gave no verdict (it could not be imported, it died,
  it ran past ``CHECK_SECONDS``);
- ``pass``: every fail_to_pass and pass_to_pass test passes (whatever stopped the agent);
- ``timeout``: the run reached its wall-clock limit (``run_seconds``) before the work was done;
- ``stopped: <reason>``: something else stopped it (its round limit, a request the server refused);
- ``check failed: <test>: <what it raised>``: the agent answered, the work is not done.

Designs (``DESIGNS``): ``text`` (calls written as text are run, one retry of an unreadable call:
miniagent's ``--text-calls --call-retries 1``), ``constrained`` (``--constrained``: a JSON schema),
``oracle`` (``oracle.OracleModel``: no server). Every live run is a session of the recording
(``kind: live``), its requests in the manifest's global order, so the calculator can predict each
``cached_tokens``; the oracle's sessions sit in ``oracle/`` and send nothing.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import shutil
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from miniagent.agents_md import read_agents_md
from miniagent.call_retry import run_with_retry
from miniagent.constrained import ConstrainedModel
from miniagent.loop import Limits, run_task
from miniagent.memory import MemoryStore
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT
from miniagent.session import Session
from miniagent.text_calls import TextCalls
from miniagent.confined import ConfinedWorkspace
from miniagent.tools import Toolbox

from prefixlab.recording.chat_client import RecordingChatModel, RequestRefused, RequestUnanswered
from prefixlab.recording.format import is_request
from prefixlab.recording.live import Sampled, continue_recording
from prefixlab.recording.recorder import Recorder

from .oracle import OracleModel
from .tasks import TASKS, Task, load_tasks

EXPERIMENT = "A9"
DESIGNS = ("text", "constrained", "oracle")
LIVE_DESIGNS = ("text", "constrained")
RESULT_KEYS = ("task", "design", "seed", "passed", "why", "prompt_tokens", "cached_tokens", "completion_tokens",
               "requests", "seconds", "stop_reason", "session")
MAX_ROUNDS = 4         # read, edit, check, answer: a one-line fix needs no more
MAX_TOKENS = 160       # per reply: an edit_file call of a line or two fits
RUN_SECONDS = 240.0    # wall-clock limit of one run
CHECK_SECONDS = 60.0   # wall-clock limit of one hidden check
REQUEST_GRACE = 30.0   # a request may run this much past the run's limit before it counts as unanswered
TEMPERATURE = 0.7      # sampled, so seeds differ
RUNNER = Path(__file__).with_name("check_runner.py")
# Every run works in the same folder, one run at a time on this machine (a file lock): a traceback in a
# tool result names the workspace's absolute path, and the replay must send the very same bytes.
RUN_DIR = Path(tempfile.gettempdir()) / "prefixlab-eval"


class CheckCrashed(Exception):
    """The hidden check gave no verdict."""


def file_hashes(root: Path, names) -> dict[str, str | None]:
    """sha256 of each protected file (None: missing)."""
    out = {}
    for name in names:
        path = root / name
        out[name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return out


def damage(before: dict, root: Path) -> str | None:
    """What the agent did to a protected file, or None."""
    for name, digest in before.items():
        now = file_hashes(root, [name])[name]
        if now != digest:
            return f"{name} {'deleted' if now is None else 'changed'}"
    return None


def run_check(task: Task, root: Path, seconds: float = CHECK_SECONDS, python: str = sys.executable) -> dict:
    """Each hidden test's result on the workspace ``root``: name -> "pass" / "fail: ..."."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave no __pycache__ of the check behind in the task folder
    try:
        done = subprocess.run([python, str(RUNNER), str(task.check), str(root)], capture_output=True,
                              text=True, timeout=seconds, env=env, cwd=root)
    except subprocess.TimeoutExpired:
        raise CheckCrashed(f"no verdict within {seconds:g} s") from None
    line = next((l for l in reversed(done.stdout.splitlines()) if l.startswith("RESULT ")), None)
    if done.returncode != 0 or line is None:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise CheckCrashed(f"exit code {done.returncode}: {last[:200]}")
    results = json.loads(line[len("RESULT "):])
    missing = [name for name in task.tests if name not in results]
    if missing:
        raise CheckCrashed(f"the check has no test {missing[0]!r}")
    return results


def verdict(task: Task, root: Path, before: dict, stop_reason: str, stopped: str | None,
            check_seconds: float = CHECK_SECONDS) -> tuple[bool, str]:
    """(passed, why) for a finished run; see the module's docstring for the order."""
    if not root.is_dir():
        return False, "workspace damaged: the workspace folder is gone"
    if hurt := damage(before, root):
        return False, f"workspace damaged: {hurt}"
    try:
        results = run_check(task, root, check_seconds)
    except CheckCrashed as err:
        return False, f"check crashed: {err}"
    failing = [(name, results[name]) for name in task.tests if results[name] != "pass"]
    if not failing:
        return True, "pass"
    if stop_reason == "timeout":
        return False, "timeout"
    if stopped:
        return False, f"stopped: {stopped}"
    name, result = failing[0]
    kind = "fail_to_pass" if name in task.fail_to_pass else "pass_to_pass"
    return False, f"check failed: {kind} {name}: {result.removeprefix('fail: ')}"[:300]


def stop_reason_of(session: Session) -> tuple[str, str | None]:
    """(stop_reason, the stopped entry's reason or None) of a finished session."""
    leaf = session.by_id[session.leaf]
    if leaf["type"] != "stopped":
        return "answered", None
    reason = leaf["reason"]
    if reason.startswith("time limit reached"):
        return "timeout", reason
    if reason.startswith("no final answer after"):
        return "max_rounds", reason
    if reason.startswith("token budget"):
        return "budget", reason
    return "stopped", reason


def usage_sums(calls: list[dict]) -> dict:
    prompt = cached = completion = 0
    for entry in calls:
        usage = (entry.get("response") or {}).get("usage") or {}
        prompt += usage.get("prompt_tokens") or 0
        completion += usage.get("completion_tokens") or 0
        cached += (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    return {"prompt_tokens": prompt, "cached_tokens": cached, "completion_tokens": completion}


def plan(tasks: list[str], designs: list[str], seeds: int) -> list[tuple[str, str, int]]:
    """Every (task, design, seed) in running order: first the oracle, once per task (it is deterministic,
    seed 1; if it fails a task, nothing after it means much), then seed by seed, every task, every design."""
    oracle = [(task, "oracle", 1) for task in tasks] if "oracle" in designs else []
    return oracle + [(task, design, seed) for seed in range(1, seeds + 1) for task in tasks for design in designs
                     if design != "oracle"]


def run_id(task: str, design: str, seed: int) -> str:
    return f"{design}-{task}-{seed:02d}"


def read_results(out: Path) -> list[dict]:
    path = out / "results.jsonl"
    if not path.exists():
        return []
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            if n == len(path.read_text(encoding="utf-8").splitlines()):
                break  # a torn last line (the run that wrote it was interrupted): that run is not done
            raise ValueError(f"{path}:{n}: not a JSON row") from None
    return rows


class EvalRecorder(Recorder):
    """A9: a plan of (task, design, seed) runs, each a session and a result row; chunked and resumable."""

    experiment = EXPERIMENT

    def __init__(self, out, connect, restart, provenance, model_name, log=print, *, tasks_root: Path = TASKS,
                 tasks: list[str] | None = None, designs: list[str] = list(LIVE_DESIGNS), seeds: int = 10,
                 max_rounds: int = MAX_ROUNDS, max_tokens: int = MAX_TOKENS, run_seconds: float = RUN_SECONDS,
                 check_seconds: float = CHECK_SECONDS, timeouts: dict | None = None):
        super().__init__(out, connect, restart, provenance, model_name, log)
        unknown = [d for d in designs if d not in DESIGNS]
        if unknown:
            raise ValueError(f"unknown design {unknown[0]!r}; known: {', '.join(DESIGNS)}")
        self.tasks = {t.id: t for t in load_tasks(tasks_root, tasks)}
        self.check_seconds = check_seconds
        self.timeouts = timeouts  # the replay: run id -> requests after which the recorded run timed out
        try:
            root = str(Path(tasks_root).resolve().relative_to(Path(TASKS).resolve().parents[2]))
        except ValueError:
            root = str(tasks_root)
        self.manifest.update({"policy": "live", "tasks_root": root,
                              "plan": {"tasks": list(self.tasks), "designs": list(designs), "seeds": seeds},
                              "limits": {"max_rounds": max_rounds, "max_tokens": max_tokens,
                                         "run_seconds": run_seconds, "check_seconds": check_seconds},
                              "sampling": {"temperature": TEMPERATURE}, "chunks": []})

    # -- the plan ------------------------------------------------------------------------------------------
    def plan(self) -> list[tuple[str, str, int]]:
        p = self.manifest["plan"]
        return plan(p["tasks"], p["designs"], p["seeds"])

    def done(self) -> set[tuple[str, str, int]]:
        return {(r["task"], r["design"], r["seed"]) for r in read_results(self.out)}

    def resume(self, out: Path, seeds: int | None = None) -> None:
        """Continue the recording in ``out`` on a fresh server (a new epoch): its plan, more seeds if asked."""
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        if manifest.get("experiment") != self.experiment:
            raise SystemExit(f"{out} is not an {self.experiment} recording")
        mine = self.manifest["plan"]
        if (manifest["plan"]["tasks"], manifest["plan"]["designs"]) != (mine["tasks"], mine["designs"]):
            raise SystemExit(f"{out} evaluates other tasks or designs ({', '.join(manifest['plan']['designs'])}); "
                             "resume it with the same --tasks and --designs, or start a new folder")
        if seeds is not None and seeds > manifest["plan"]["seeds"]:
            manifest["plan"]["seeds"] = seeds
        continue_recording(self, out, manifest, not_sessions={"results.jsonl"})

    def record(self, chunks: list[int] | None = None, minutes: float | None = None, progress=None) -> dict:
        """The next runs of the plan that have no row yet: ``chunks`` (runs per epoch: the replay), or as
        many as fit in ``minutes``; a progress line per run. The recording is complete after each slice."""
        progress = progress or self.log
        planned = self.plan()
        done = self.done()
        todo = [item for item in planned if item not in done]
        if chunks is not None:
            for i, count in enumerate(chunks):
                if i:
                    self.epoch = self.restart(self.epoch)
                for item in todo[:count]:
                    self.run(*item)
                todo = todo[count:]
                self.manifest["chunks"].append(count)
            return self.finish()
        started, longest, count = time.monotonic(), 0.0, 0
        self.log(f"evaluating into {self.out}: {len(todo)} of {len(planned)} runs left, epoch {self.epoch}")
        try:
            for item in todo:
                elapsed = time.monotonic() - started
                if minutes is not None and count and elapsed + longest > minutes * 60:
                    self.log(f"stopping this slice after {count} runs ({elapsed / 60:.1f} min); --resume continues")
                    break
                began = time.monotonic()
                row = self.run(*item)
                count += 1
                longest = max(longest, time.monotonic() - began)
                progress(f"[{len(planned) - len(todo) + count}/{len(planned)}] {row['task']} {row['design']} "
                         f"seed {row['seed']}: {'PASS' if row['passed'] else 'FAIL'} ({row['why'][:80]}) "
                         f"{row['requests']} requests, {row['seconds']:.0f} s")
        finally:
            self.manifest["chunks"].append(count)
        return self.finish()

    # -- one run -------------------------------------------------------------------------------------------
    def run(self, task_id: str, design: str, seed: int) -> dict:
        with one_run_at_a_time() as root:
            return self._run(task_id, design, seed, root)

    def _run(self, task_id: str, design: str, seed: int, root: Path) -> dict:
        task = self.tasks[task_id]
        name = run_id(task_id, design, seed)
        workspace = ConfinedWorkspace(task.make_workspace(root / "repo"))
        memory = MemoryStore(root / "home" / "MEMORY.md")
        before = file_hashes(workspace.root, task.protected)
        if design == "oracle":
            (self.out / "oracle").mkdir(parents=True, exist_ok=True)
            file = f"oracle/{name}.jsonl"
        else:
            file = f"{name}.jsonl"
        session = Session.open(self.out / file)
        step = for_mode("frozen", BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
        limits_ = self.manifest["limits"]
        began = time.monotonic()
        sampled = None
        if design == "oracle":
            model = OracleModel(task.oracle)
        else:
            chat = RecordingChatModel(self.connect(), self.model_name, self.log, timeout=limits_["run_seconds"] + REQUEST_GRACE)
            sampled = Sampled(chat, self.clock, max_tokens=limits_["max_tokens"],
                              temperature=self.manifest["sampling"]["temperature"], seed=seed)
            model = TextCalls(sampled) if design == "text" else ConstrainedModel(sampled)
        limits = Limits(max_rounds=limits_["max_rounds"], max_seconds=limits_["run_seconds"],
                        clock=self._run_clock(name, sampled, began))
        loop = dict(model=model, toolbox=Toolbox(workspace, memory), session=session, steps=[step], limits=limits)
        error: Exception | None = None
        stopped_by: str | None = None
        try:
            if design == "text":
                run_with_retry(task.text, max_retries=1, **loop)
            else:
                run_task(task.text, **loop)
        except RequestRefused as err:  # the server refused a request (too long): kept, the run ends here
            self.record_refusal(session, err, len(sampled.sent_at))
            stopped_by = f"the server refused a request: {err}"[:300]
        except RequestUnanswered as err:  # the server may have seen it: this slice must stop after the row
            error, stopped_by = err, f"no answer from the server: {err}"[:300]
        seconds = round(time.monotonic() - began, 1)
        calls = [e for e in session.entries if is_request(e)]
        if design != "oracle":
            info = {"id": name, "file": file, "group": "frozen", "day": 1, "kind": "live",
                    "task": task_id, "design": design, "seed": seed}
            self._register(info, session, 0, sampled.sent_at[:len(calls)])
        stop_reason, stopped = stop_reason_of(session)
        if stopped_by:
            stopped = stopped_by
            stop_reason = "timeout" if "within" in stopped_by and "no answer" in stopped_by else "error"
        passed, why = verdict(task, workspace.root, before, stop_reason, stopped, self.check_seconds)
        row = {"task": task_id, "design": design, "seed": seed, "passed": passed, "why": why,
               **(usage_sums(calls) if design != "oracle" else usage_sums([])),
               "requests": len(calls) if design != "oracle" else 0, "seconds": seconds,
               "stop_reason": stop_reason, "session": file}
        with open(self.out / "results.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
        if error is not None:
            raise error
        return row

    def _run_clock(self, name: str, sampled: Sampled | None, began: float):
        """The run's clock for its wall-clock limit. In a replay, the recorded timeouts come back where they
        happened: after as many requests as the recorded run made."""
        if self.timeouts is None:
            return time.monotonic
        limit = self.timeouts.get(name)
        if limit is None:
            return lambda: began
        return lambda: math.inf if sampled is not None and len(sampled.sent_at) >= limit else began


@contextlib.contextmanager
def one_run_at_a_time():
    """``RUN_DIR/run``, empty, held for this run alone (other evaluations on this machine wait)."""
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    with open(RUN_DIR / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        root = RUN_DIR / "run"
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir()
        try:
            yield root
        finally:
            shutil.rmtree(root, ignore_errors=True)


def replay_options(recording) -> tuple[dict, dict]:
    """The recorder's keyword arguments and ``record`` options that made ``recording`` (tests/test_replay.py)."""
    from prefixlab.paths import REPO_ROOT

    m = recording.manifest
    rows = read_results(recording.path)
    timeouts = {run_id(r["task"], r["design"], r["seed"]): r["requests"] for r in rows if r["stop_reason"] == "timeout"}
    kwargs = {"tasks_root": REPO_ROOT / m["tasks_root"], "tasks": m["plan"]["tasks"], "designs": m["plan"]["designs"],
              "seeds": m["plan"]["seeds"], "timeouts": timeouts, "check_seconds": m["limits"]["check_seconds"],
              **{k: m["limits"][k] for k in ("max_rounds", "max_tokens", "run_seconds")}}
    return kwargs, {"chunks": m["chunks"]}
