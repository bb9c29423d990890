"""``python -m prefixlab eval OUT``: evaluate miniagent on a task set, one result row per run.

    python -m prefixlab eval _build/eval-oracle --designs oracle                 # no server: the harness's own check
    python -m prefixlab eval data/recordings/a9-eval-qwen2.5-coder-0.5b-llamacpp --minutes 14   # the course's live model
    python -m prefixlab eval data/recordings/a9-eval-qwen2.5-coder-0.5b-llamacpp --resume --minutes 14
    python -m prefixlab eval _build/my-eval --url http://127.0.0.1:8000/v1 --model NAME    # your own server

Without ``--url`` it starts the course's llama-server with the live model (Qwen2.5 Coder 0.5B, ``-t 1``)
and restarts it for every slice (a new epoch, an empty cache). With ``--url`` it talks to your server and
never restarts it. OUT gets ``results.jsonl`` (one row per run, see data/recordings/FORMAT.md), the session
files and ``manifest.json``; ``--resume`` skips every run that already has a row.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .harness import DESIGNS, LIVE_DESIGNS, MAX_ROUNDS, MAX_TOKENS, RUN_SECONDS, EvalRecorder
from .tasks import TASKS, TaskSetError, load_tasks


def names(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError("name at least one, separated by commas")
    return items


def positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or value <= 0:
            raise argparse.ArgumentTypeError(f"must be a positive number, not {text!r}")
        return value
    return parse


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m prefixlab eval", description=__doc__.split("\n\n")[0],
                                epilog="designs: text = --text-calls --call-retries 1; constrained = --constrained; "
                                       "oracle = the scripted solution (no server)")
    p.add_argument("out", type=Path, help="folder for results.jsonl, the sessions and manifest.json")
    p.add_argument("--url", help="OpenAI-compatible base URL of your own server (default: start the course's)")
    p.add_argument("--model", default="local", help="model name sent to the server (default: %(default)s)")
    p.add_argument("--task-set", type=Path, default=TASKS, help="folder of tasks (default: data/a9/tasks)")
    p.add_argument("--tasks", type=names, help="only these task ids, comma-separated (default: all)")
    p.add_argument("--designs", type=names, default=list(LIVE_DESIGNS),
                   help=f"comma-separated, of {', '.join(DESIGNS)} (default: %(default)s)")
    p.add_argument("--seeds", type=positive(int), default=10, help="seeds per task and design (default: %(default)s)")
    p.add_argument("--minutes", type=positive(float), help="stop starting runs once the next would end after this")
    p.add_argument("--resume", action="store_true", help="continue OUT: skip every run that has a result row")
    p.add_argument("--max-rounds", type=positive(int), default=MAX_ROUNDS, help="rounds per run (default: %(default)s)")
    p.add_argument("--max-tokens", type=positive(int), default=MAX_TOKENS, help="tokens per reply (default: %(default)s)")
    p.add_argument("--run-seconds", type=positive(float), default=RUN_SECONDS,
                   help="wall-clock limit of one run (default: %(default)s)")
    p.add_argument("--port", type=int, default=0, help="port for the launched server (default: a free one)")
    return p, p.parse_args(argv)


def external_provenance(url: str, model: str, command: str) -> dict:
    import platform
    return {"server": {"kind": "external", "url": url, "restarts": False, "flags": []},
            "model": {"name": model}, "chat_template": {"sha256": "unknown", "text": ""},
            "tokenizer": {"sha256": "unknown", "path": None},
            "recorder": {"python": platform.python_version(), "platform": platform.platform(terse=True),
                         "command": command}}


def main(argv=None) -> int:
    from prefixlab.recording.recorder import command_line, run_recording

    argv = sys.argv[1:] if argv is None else list(argv)
    p, args = parse_args(argv)
    bad = [d for d in args.designs if d not in DESIGNS]
    if bad:
        p.error(f"argument --designs: unknown design {bad[0]!r}; choose from {', '.join(DESIGNS)}")
    try:
        load_tasks(args.task_set, args.tasks)
    except TaskSetError as err:
        p.error(str(err))
    if args.out.exists() and not args.resume:
        p.error(f"{args.out} exists; choose a new folder, or continue it with --resume")
    if args.resume and not (args.out / "manifest.json").exists():
        p.error(f"{args.out} holds no evaluation to continue")
    prog = "python -m prefixlab eval"
    command = command_line(prog, argv)
    live = any(d != "oracle" for d in args.designs)
    server, restart = None, None
    if live and args.url is None:
        from prefixlab.recording.live import SERVER_ARGS, live_provenance
        from prefixlab.serving.server import free_port, named_server

        server = named_server("live", port=args.port or free_port(), extra_args=SERVER_ARGS).start()
        provenance = live_provenance(server, command)
        connect = lambda: server.openai_base_url  # noqa: E731
    else:
        provenance = external_provenance(args.url or "none", args.model if live else "oracle", command)
        connect = lambda: args.url  # noqa: E731
    try:
        recorder = EvalRecorder(args.out, connect, restart, provenance, args.model, tasks_root=args.task_set,
                                tasks=args.tasks, designs=args.designs, seeds=args.seeds,
                                max_rounds=args.max_rounds, max_tokens=args.max_tokens, run_seconds=args.run_seconds)
        if args.resume:
            recorder.resume(args.out, seeds=args.seeds)
    except BaseException:
        if server is not None:
            server.stop()
        raise
    code = run_recording(prog, recorder, server, minutes=args.minutes, progress=lambda line: print(line, flush=True))
    from .harness import read_results
    rows = read_results(args.out)
    for design in dict.fromkeys(r["design"] for r in rows):
        mine = [r for r in rows if r["design"] == design]
        print(f"{design}: {sum(r['passed'] for r in mine)} of {len(mine)} runs pass")
    return code
