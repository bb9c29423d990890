"""The live model on this machine: how fast it is, and how often it answers with a usable tool call.

    python benchmarks/bench_live_model.py                        # -> data/a1/live/bench.json
    python benchmarks/bench_live_model.py --seeds 1 --out /tmp/b.json   # quicker

Starts llama-server with the live model (``python -m prefixlab server fetch --model live`` first;
its own chat template, ``--jinja``) and measures:

1. speed: one rendered A1 prompt sent to ``/completion`` with ``cache_prompt: false`` and a fixed
   number of generated tokens (``ignore_eos``), ``--speed-runs`` times; the server's own
   ``timings`` give prompt and generation tokens per second (median, min, max).
2. tool calls: the first request of a session on the toy repository (``data/toy-repo``) with
   miniagent's six tools, for several tasks, in four cells: miniagent's system prompt or a
   stricter one we wrote (``BETTER_PROMPT``) x temperature 0 or sampled (temperature 0.7, fixed
   seeds). Each reply is sorted into one of three kinds:
   - ``native``: the server parsed a tool call (``message.tool_calls``);
   - ``text``: no native call, but a call of an offered tool written as JSON in the text
     (``miniagent.text_calls``, the lenient parser);
   - ``prose``: neither.
   For the calls found we also check the arguments against the tool's schema (``args_ok``).

The machine is shared (other processes may run at the same time): the load average before and
after is written next to the numbers, and speed figures are this machine's, under that load.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from miniagent.agents_md import read_agents_md  # noqa: E402
from miniagent.memory import MemoryStore  # noqa: E402
from miniagent.modes import for_mode  # noqa: E402
from miniagent.prompt import BASE_PROMPT  # noqa: E402
from miniagent.session import Session  # noqa: E402
from miniagent.text_calls import find_text_calls  # noqa: E402
from miniagent.tools import Toolbox, Workspace, schema_problem  # noqa: E402
from prefixlab.paths import DATA, TOY_REPO  # noqa: E402
from prefixlab.serving import models  # noqa: E402
from prefixlab.serving.client import ServerClient  # noqa: E402
from prefixlab.serving.server import named_server  # noqa: E402

OUT = DATA / "a1" / "live" / "bench.json"
MODEL_OUT = DATA / "a1" / "live" / "model.json"

# The A1 task first; the others are smaller steps of the same kind of work on the toy repository.
TASKS = [
    "Run the checks of this repository (python tools/check.py) and fix what fails.",
    "List the files of this repository.",
    "Read units/convert.py and explain what parse_temperature does.",
    "Run python tools/check.py and tell me how many checks pass.",
    "What does README.md say this repository is for?",
]

# Our stricter prompt: the call format spelled out with an example, relative paths, no guessing.
BETTER_PROMPT = (DATA / "a1" / "live" / "system-prompt.txt").read_text(encoding="utf-8")

SAMPLED = {"temperature": 0.7, "top_p": 0.9}
MAX_TOKENS = 128  # a call written as JSON takes 30-60 tokens; longer prose is cut (still prose)


def miniagent_messages(task: str, root: Path, home: Path) -> list[dict]:
    """The messages of miniagent's first request for ``task`` (its default design, ``frozen``)."""
    memory = MemoryStore(home / "MEMORY.md")
    design = for_mode("frozen", BASE_PROMPT, read_agents_md(root), memory, root)
    session = Session.open(home / "session.jsonl")
    text = design.start(session, task)
    session.append("message", message={"role": "user", "content": text})
    design.before_call(session, 1, lambda line: None)
    return session.messages()


def better_messages(task: str) -> list[dict]:
    return [{"role": "system", "content": BETTER_PROMPT}, {"role": "user", "content": task}]


def classify(message: dict, toolbox: Toolbox) -> dict:
    """native / text / prose, the first call's name and arguments, and whether they fit the schema."""
    schemas = {d["function"]["name"]: d["function"]["parameters"] for d in toolbox.definitions}
    native = message.get("tool_calls") or []
    if native:
        kind = "native"
        calls = []
        for call in native:
            try:
                calls.append((call["function"]["name"], json.loads(call["function"]["arguments"] or "{}")))
            except (KeyError, TypeError, json.JSONDecodeError):
                calls.append((call.get("function", {}).get("name"), None))
    else:
        calls, _ = find_text_calls(message.get("content") or "", set(schemas))
        kind = "text" if calls else "prose"
    first = calls[0] if calls else (None, None)
    args_ok = bool(calls) and first[0] in schemas and first[1] is not None \
        and schema_problem(first[1], schemas[first[0]]) is None
    return {"kind": kind, "calls": len(calls), "first_call": first[0],
            "first_arguments": first[1], "args_ok": args_ok}


def speed(client: ServerClient, prompt: str, runs: int, n_predict: int) -> dict:
    rows = []
    for _ in range(runs):
        status, reply = client.status("/completion", {
            "prompt": prompt, "n_predict": n_predict, "ignore_eos": True, "temperature": 0,
            "cache_prompt": False}, timeout=600)
        if status != 200:
            raise RuntimeError(f"/completion answered HTTP {status}: {reply}")
        t = reply["timings"]
        rows.append({"prompt_n": t["prompt_n"], "prompt_per_second": t["prompt_per_second"],
                     "predicted_n": t["predicted_n"], "predicted_per_second": t["predicted_per_second"]})

    def summary(key):
        values = [r[key] for r in rows]
        return {"median": statistics.median(values), "min": min(values), "max": max(values)}

    return {"runs": rows, "prompt_tokens_per_second": summary("prompt_per_second"),
            "generation_tokens_per_second": summary("predicted_per_second")}


def first_prompt(client: ServerClient, tmp: Path) -> str:
    """The prompt text of miniagent's first request for the A1 task, as the server renders it."""
    root = tmp / "repo"
    if not root.exists():
        shutil.copytree(TOY_REPO, root)
    tools = Toolbox(Workspace(root), MemoryStore(tmp / "home" / "MEMORY.md")).definitions
    messages = miniagent_messages(TASKS[0], root, tmp / "home")
    status, rendered = client.status("/apply-template", {"messages": messages, "tools": tools}, timeout=60)
    if status != 200:
        raise RuntimeError(f"/apply-template answered HTTP {status}: {rendered}")
    return rendered["prompt"]


def chat(client: ServerClient, messages, tools, params) -> tuple[dict, dict]:
    body = {"messages": messages, "tools": tools, "max_tokens": MAX_TOKENS, **params}
    status, reply = client.status("/v1/chat/completions", body, timeout=600)
    if status != 200:
        raise RuntimeError(f"/v1/chat/completions answered HTTP {status}: {reply}")
    return reply["choices"][0]["message"], reply


def write_model_facts(out: Path) -> int:
    """The checked file (size, sha256, parts) and its GGUF metadata, as JSON."""
    from prefixlab.serving.server import cache_dir, fetch_named_model, sha256_file

    path = fetch_named_model("live", cache_dir())  # checks size and sha256 again
    spec = models.LIVE
    facts = {"what": "the live model file: where it comes from and what its GGUF metadata says "
                     "(benchmarks/bench_live_model.py --model-only)",
             "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "file": path.name, "size": path.stat().st_size, "sha256": sha256_file(path),
             "pinned": {"size": spec.size, "sha256": spec.sha256},
             "parts": [{"package": part.requirement, "wheel": part.wheel_name, "member": part.member,
                        "size": part.size, "sha256": part.sha256,
                        "metadata": models.wheel_summary(cache_dir() / "dl" / part.wheel_name)}
                       for part in spec.parts],
             "gguf": models.gguf_metadata(path)}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(facts, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--seeds", type=int, default=2, help="sampled requests per task (seeds 1..N)")
    p.add_argument("--repeat", type=int, default=1,
                   help="temperature-0 requests per task (the same request again: is the answer the same?)")
    p.add_argument("--speed-runs", type=int, default=3)
    p.add_argument("--threads", type=int, default=1,
                   help="llama-server -t for the tool-call requests (default 1: on a machine shared with other "
                        "busy processes, two threads spend their time waiting for each other; 0 = the server's choice)")
    p.add_argument("--no-default-threads-speed", action="store_true",
                   help="skip the speed runs with the server's own thread count")
    p.add_argument("--n-predict", type=int, default=32, help="generated tokens per speed run")
    p.add_argument("--model-only", action="store_true",
                   help=f"only write what the fetched GGUF and its parts say about themselves to {MODEL_OUT}")
    args = p.parse_args(argv)
    if args.model_only:
        return write_model_facts(MODEL_OUT)

    load_before = os.getloadavg()
    started = datetime.now(timezone.utc)
    speed_default_threads = None
    if not args.no_default_threads_speed:
        # The same speed runs on a server with llama.cpp's own thread count, for comparison.
        with tempfile.TemporaryDirectory() as tmp, named_server("live", port=0) as srv:
            client = ServerClient(srv.url)
            prompt = first_prompt(client, Path(tmp))
            speed_default_threads = {"flags": srv.provenance()["flags"],
                                     "loadavg": [round(x, 2) for x in os.getloadavg()],
                                     **speed(client, prompt, args.speed_runs, args.n_predict)}
        print(f"speed, default threads: prompt {speed_default_threads['prompt_tokens_per_second']['median']:.1f} "
              f"tok/s, generation {speed_default_threads['generation_tokens_per_second']['median']:.1f} tok/s",
              flush=True)
    with tempfile.TemporaryDirectory() as tmp, named_server(
            "live", port=0, extra_args=["-t", str(args.threads)] if args.threads else []) as srv:
        client = ServerClient(srv.url)
        prov = srv.provenance()
        root = Path(tmp) / "repo"
        shutil.copytree(TOY_REPO, root)
        toolbox = Toolbox(Workspace(root), MemoryStore(Path(tmp) / "home" / "MEMORY.md"))
        tools = toolbox.definitions

        speed_result = {"loadavg": [round(x, 2) for x in os.getloadavg()],
                        **speed(client, first_prompt(client, Path(tmp) / "speed"), args.speed_runs, args.n_predict)}
        print(f"speed: prompt {speed_result['prompt_tokens_per_second']['median']:.1f} tok/s, "
              f"generation {speed_result['generation_tokens_per_second']['median']:.1f} tok/s", flush=True)

        cells = []
        for prompt_name in ("miniagent", "better"):
            for setting in ("temperature-0", "sampled"):
                replies = []
                for t, task in enumerate(TASKS):
                    if prompt_name == "miniagent":
                        messages = miniagent_messages(task, root, Path(tmp) / f"home-{prompt_name}-{setting}-{t}")
                    else:
                        messages = better_messages(task)
                    for r in range(args.repeat if setting == "temperature-0" else args.seeds):
                        params = {"temperature": 0} if setting == "temperature-0" else {**SAMPLED, "seed": r + 1}
                        began = time.monotonic()
                        message, reply = chat(client, messages, tools, params)
                        row = {"task": t, "repeat": r, **params, **classify(message, toolbox),
                               "content": (message.get("content") or "")[:400],
                               "native_tool_calls": message.get("tool_calls"),
                               "prompt_tokens": reply["usage"]["prompt_tokens"],
                               "completion_tokens": reply["usage"]["completion_tokens"],
                               "seconds": round(time.monotonic() - began, 2)}
                        replies.append(row)
                        print(f"{prompt_name:9} {setting:13} task {t} #{r}: {row['kind']:6} "
                              f"{row['first_call']} {json.dumps(row['first_arguments'])[:60]}", flush=True)
                counts = {k: sum(r["kind"] == k for r in replies) for k in ("native", "text", "prose")}
                cells.append({"prompt": prompt_name, "setting": setting, "requests": len(replies),
                              "counts": counts, "args_ok": sum(r["args_ok"] for r in replies),
                              "replies": replies})

    load_after = os.getloadavg()
    result = {
        "what": "live model: speed and tool-call rates on the A1 toy repository (benchmarks/bench_live_model.py)",
        "date": started.isoformat(timespec="seconds"),
        "seconds": round((datetime.now(timezone.utc) - started).total_seconds(), 1),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(terse=True),
                    "cpu": prov["platform"]["cpu"]["model"],
                    "loadavg_before": [round(x, 2) for x in load_before],
                    "loadavg_after": [round(x, 2) for x in load_after],
                    "shared": "other processes shared the machine during the run; see the load averages"},
        "model": {"description": models.LIVE.description, **prov["model"]},
        "server": {"version": prov["server"]["version"], "binary_sha256": prov["server"]["binary_sha256"],
                   "package": prov["server"]["package"], "build_variant": (prov["server"]["build"] or {}).get("variant"),
                   "flags": prov["flags"], "n_ctx": prov["props"]["n_ctx"],
                   "chat_template_sha256": prov["chat_template"]["sha256"],
                   "chat_template_caps": prov["props"]["chat_template_caps"]},
        "settings": {"tasks": TASKS, "max_tokens": MAX_TOKENS, "sampled": SAMPLED, "repeat": args.repeat, "seeds": args.seeds,
                     "tools": [d["function"]["name"] for d in tools], "better_prompt": BETTER_PROMPT,
                     "speed_n_predict": args.n_predict, "speed_prompt_tokens": speed_result["runs"][0]["prompt_n"]},
        "speed": speed_result,
        "speed_default_threads": speed_default_threads,
        "cells": cells,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for cell in cells:
        print(f"{cell['prompt']:9} {cell['setting']:13} {cell['counts']} args_ok {cell['args_ok']}/{cell['requests']}")
    print(f"wrote {args.out} (load {load_before[0]:.2f} -> {load_after[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
