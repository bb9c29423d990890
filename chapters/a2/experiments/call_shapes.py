"""A2·1: how often does a real model write a call we cannot use, in each of the two shapes?

    python -m chapters.a2.experiments.call_shapes run --minutes 12     # one chunk (resumes where it stopped)
    python -m chapters.a2.experiments.call_shapes summary              # -> data/a2/call-shapes.json

The live model (Qwen2.5 Coder 0.5B, ``python -m prefixlab server fetch --model live``) gets the first
request of a session on the toy repository (``data/toy-repo``): one task that needs exactly one tool call,
miniagent's four A1 tools (list_files, read_file, edit_file, run_command). Two shapes of the same request:

- ``native``: the tools in the request's ``tools`` field. The server renders them with the model's own
  chat template (Qwen2.5: inside the system turn, after the system text, with the instruction to answer
  in ``<tool_call>`` tags) and parses the reply back into ``message.tool_calls``.
- ``text`` (ReAct style): no ``tools`` field. The system prompt itself lists the tools and asks for one
  line ``Action: {"name": ..., "arguments": {...}}``; our own parser (``miniagent.text_calls``) finds it.

A reply is **usable** when it carries a call of an offered tool whose arguments fit the tool's schema
(checked as ``miniagent.tools.Toolbox.call`` checks them); anything else is **malformed** for this lesson:
no call at all (prose), a call we cannot parse, or arguments that do not fit. For the native shape we
also note whether the lenient parser would have found the call in the text (``ChatModel(text_calls=True)``).

After a malformed reply, one bounded retry: the reply and a short correction go back to the model, once.
Its usage (prompt, cached and completion tokens, the server's own timings) is what a retry costs.

Sampling: temperature 0.7, top_p 0.9, a fixed seed per sample, so repeated requests differ and the run
can be repeated. The rows go to ``data/a2/call-shapes/rows.jsonl`` as they come (a stopped run resumes);
the order is seed by seed, one shape's tasks after the other's, so a partial run stays balanced.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from miniagent.text_calls import find_text_calls
from miniagent.tools import Toolbox, Workspace, schema_problem

from chapters.a2.paths import CALL_SHAPES_DIR, CALL_SHAPES_SUMMARY
from prefixlab.paths import TOY_REPO

SHAPES = ("native", "text")
SYSTEM = ("You are a coding agent working in a small Python repository. Use the tools to look at files, "
          "change them and run commands. When the task is done, reply with a short summary and call no tool.")
# The text shape: the same system text, then the tools and the call format written by us (ReAct style).
TEXT_FORMAT = """

# Tools
You can use these tools. Each takes string arguments.
{tools}

To call a tool, reply with exactly one line of this form and nothing else:
Action: {{"name": "<tool name>", "arguments": {{<arguments as JSON>}}}}
The result comes back in the next message."""
TASKS = [
    "List the files of this repository.",
    "Show me which files are in the units directory.",
    "Read README.md.",
    "Read units/convert.py.",
    "Show me the contents of tools/check.py.",
    "Run python tools/check.py.",
    "Run the command `ls -la` in the repository.",
    "How many lines does units/convert.py have? Use wc -l.",
    "In README.md, replace the word tempconv with thermo.",
    "Run the checks (python tools/check.py) and tell me whether they pass.",
]
RETRY = {"native": "Your reply contained no valid tool call. Call exactly one of the tools now.",
         "text": 'Your reply contained no valid Action line. Reply with exactly one line: '
                 'Action: {"name": "<tool name>", "arguments": {...}}'}
SAMPLING = {"temperature": 0.7, "top_p": 0.9}
MAX_TOKENS = 96   # a call is 20-50 tokens; longer prose is cut (and stays prose)
SERVER_ARGS = ["-t", "1"]   # as chapters/a1/experiments/live_run.py: one thread on a shared 2-core machine
ROWS = CALL_SHAPES_DIR / "rows.jsonl"
FOUR = ("list_files", "read_file", "edit_file", "run_command")   # the tools A1's agent offers


def four_definitions(workspace: Workspace) -> list[dict]:
    """miniagent's definitions of ``FOUR``, in miniagent's order (what A1's agent offers)."""
    toolbox = Toolbox(workspace, memory=None)
    return [toolbox.handlers[name].definition for name in FOUR]


def tool_list(definitions: list[dict]) -> str:
    """The tools as the text shape describes them: one line each, name(arguments): description."""
    lines = []
    for d in definitions:
        fn = d["function"]
        args = ", ".join(fn["parameters"]["properties"])
        lines.append(f"- {fn['name']}({args}): {fn['description']}")
    return "\n".join(lines)


def request_body(shape: str, task: str, definitions: list[dict]) -> dict:
    """The chat request of ``task`` in ``shape`` (without the sampling parameters)."""
    if shape == "native":
        return {"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}],
                "tools": definitions}
    system = SYSTEM + TEXT_FORMAT.format(tools=tool_list(definitions))
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": task}]}


def check_call(name, args, schemas: dict) -> str | None:
    """Why the call ``name(args)`` could not run as miniagent's toolbox runs it, or None if it could."""
    if name not in schemas:
        return "unknown_tool"
    problem = schema_problem(args, schemas[name])
    extra = set(args) - set(schemas[name]["properties"]) if isinstance(args, dict) else set()
    if problem or extra:  # an argument the handler does not take fails when it runs (Toolbox.call)
        return "bad_arguments"
    return None


def classify(shape: str, message: dict, definitions: list[dict]) -> dict:
    """usable / malformed and why, the call, and (native) whether the lenient parser finds a usable call."""
    schemas = {d["function"]["name"]: d["function"]["parameters"] for d in definitions}
    native = message.get("tool_calls") or []
    text_calls, _ = find_text_calls(message.get("content") or "", set(schemas))
    lifted = bool(text_calls) and check_call(*text_calls[0], schemas) is None
    if shape == "native":
        if not native:
            return {"usable": False, "why": "no_native_call", "call": None, "lifted": lifted}
        call = native[0]["function"]
        try:
            args = json.loads(call.get("arguments") or "{}") if isinstance(call.get("arguments"), str) \
                else call.get("arguments")
        except json.JSONDecodeError:
            return {"usable": False, "why": "arguments_not_json", "call": call.get("name"), "lifted": False}
        name = call.get("name")
    else:
        if not text_calls:
            return {"usable": False, "why": "no_call_found", "call": None, "lifted": False}
        name, args = text_calls[0]
    why = check_call(name, args, schemas)
    return {"usable": why is None, "why": why, "call": name, "lifted": False}


def usage_of(reply: dict) -> dict:
    usage = reply.get("usage") or {}
    timings = reply.get("timings") or {}
    return {"prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
            "cached_tokens": (usage.get("prompt_tokens_details") or {}).get("cached_tokens"),
            "prompt_ms": timings.get("prompt_ms"), "predicted_ms": timings.get("predicted_ms")}


def done_keys(rows: Path) -> set[tuple]:
    if not rows.exists():
        return set()
    return {(r["seed"], r["shape"], r["task"]) for r in map(json.loads, rows.read_text().splitlines())}


def run(minutes: float, seeds: int, rows: Path = ROWS, log=print) -> int:
    """Send requests until ``minutes`` have passed or every (seed, shape, task) is done; append rows."""
    from prefixlab.serving.client import ServerClient
    from prefixlab.serving.server import free_port, named_server

    rows.parent.mkdir(parents=True, exist_ok=True)
    done = done_keys(rows)
    todo = [(seed, shape, t) for seed in range(1, seeds + 1) for shape in SHAPES for t in range(len(TASKS))
            if (seed, shape, t) not in done]
    if not todo:
        log("every sample is done")
        return 0
    deadline = time.monotonic() + minutes * 60
    with tempfile.TemporaryDirectory() as tmp, \
            named_server("live", port=free_port(), extra_args=SERVER_ARGS, log=log) as server:
        root = Path(tmp) / "repo"
        shutil.copytree(TOY_REPO, root)
        definitions = four_definitions(Workspace(root))
        client = ServerClient(server.url, timeout=600)
        prov = server.provenance()
        meta = {"model_sha256": prov["model"]["sha256"], "flags": prov["flags"],
                "template_sha256": prov["chat_template"]["sha256"], "version": prov["server"]["version"]}
        (rows.parent / "server.json").write_text(json.dumps(meta, indent=1) + "\n")
        sent = 0
        for seed, shape, t in todo:
            if time.monotonic() > deadline:
                break
            body = {**request_body(shape, TASKS[t], definitions), **SAMPLING, "seed": seed, "max_tokens": MAX_TOKENS}
            status, reply = client.status("/v1/chat/completions", body, timeout=600)
            if status != 200:
                raise RuntimeError(f"HTTP {status}: {reply}")
            message = reply["choices"][0]["message"]
            row = {"seed": seed, "shape": shape, "task": t, **classify(shape, message, definitions),
                   "content": message.get("content"), "tool_calls": message.get("tool_calls"),
                   **usage_of(reply), "retry": None, "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
            if not row["usable"]:  # one bounded retry: the reply and a correction go back once
                sent_message = {"role": "assistant", "content": message.get("content") or ""}
                retry_body = {**body, "messages": body["messages"] + [sent_message,
                                                                     {"role": "user", "content": RETRY[shape]}]}
                status, again = client.status("/v1/chat/completions", retry_body, timeout=600)
                if status != 200:
                    raise RuntimeError(f"HTTP {status}: {again}")
                message2 = again["choices"][0]["message"]
                row["retry"] = {**classify(shape, message2, definitions), "content": message2.get("content"),
                                "tool_calls": message2.get("tool_calls"), **usage_of(again)}
            with rows.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
            sent += 1
            log(f"seed {seed} {shape:6} task {t}: {'ok ' if row['usable'] else 'BAD'} {row['why'] or row['call']}"
                + (f" -> retry {'ok' if row['retry']['usable'] else 'BAD'}" if row["retry"] else ""))
    log(f"{sent} samples this run; {len(done) + sent} of {seeds * len(SHAPES) * len(TASKS)} done")
    return 0


def reclassified(row: dict, definitions: list[dict]) -> dict:
    """``row`` sorted again from the reply it stores (so a refined rule applies to every row alike)."""
    def sort(reply: dict) -> dict:
        message = {"content": reply["content"], "tool_calls": reply["tool_calls"]}
        return {**reply, **classify(row["shape"], message, definitions)}
    out = sort(row)
    if row["retry"]:
        out["retry"] = sort(row["retry"])
    return out


def summarize(rows: Path = ROWS) -> dict:
    """Per shape: samples, usable, malformed (and why), malformed per 100, the retries and what they cost."""
    definitions = four_definitions(Workspace(TOY_REPO))
    all_rows = [reclassified(json.loads(line), definitions) for line in rows.read_text().splitlines()]
    server = json.loads((rows.parent / "server.json").read_text())
    out = {"what": "A2·1: malformed tool calls per shape, live model (chapters/a2/experiments/call_shapes.py)",
           "first": min(r["at"] for r in all_rows), "last": max(r["at"] for r in all_rows),
           "server": server, "tasks": TASKS, "max_tokens": MAX_TOKENS, "sampling": SAMPLING, "shapes": {}}
    for shape in SHAPES:
        rs = [r for r in all_rows if r["shape"] == shape]
        bad = [r for r in rs if not r["usable"]]
        retried = [r["retry"] for r in bad if r["retry"]]
        why: dict[str, int] = {}
        for r in bad:
            why[r["why"]] = why.get(r["why"], 0) + 1
        out["shapes"][shape] = {
            "samples": len(rs), "usable": len(rs) - len(bad), "malformed": len(bad),
            "malformed_per_100": round(100 * len(bad) / len(rs)) if rs else None,
            "why": why, "lifted": sum(1 for r in bad if r.get("lifted")),
            "retry_lifted": sum(1 for r in retried if r.get("lifted")),
            "retries": len(retried), "retry_usable": sum(1 for r in retried if r["usable"]),
            "retry_prompt_tokens": sum(r["prompt_tokens"] for r in retried),
            "retry_cached_tokens": sum(r["cached_tokens"] or 0 for r in retried),
            "retry_completion_tokens": sum(r["completion_tokens"] for r in retried),
            "retry_seconds": round(sum((r["prompt_ms"] or 0) + (r["predicted_ms"] or 0) for r in retried) / 1000, 1),
            "first_prompt_tokens": sum(r["prompt_tokens"] for r in rs),
            "first_completion_tokens": sum(r["completion_tokens"] for r in rs),
            "first_seconds": round(sum((r["prompt_ms"] or 0) + (r["predicted_ms"] or 0) for r in rs) / 1000, 1),
        }
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m chapters.a2.experiments.call_shapes", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="send requests for at most --minutes (resumes)")
    r.add_argument("--minutes", type=float, default=12.0)
    r.add_argument("--seeds", type=int, default=5, help="samples per (shape, task)")
    r.add_argument("--rows", type=Path, default=ROWS)
    s = sub.add_parser("summary", help=f"write {CALL_SHAPES_SUMMARY}")
    s.add_argument("--rows", type=Path, default=ROWS)
    s.add_argument("--out", type=Path, default=CALL_SHAPES_SUMMARY)
    args = p.parse_args(argv)
    if args.command == "run":
        return run(args.minutes, args.seeds, args.rows, log=lambda line: print(line, flush=True))
    summary = summarize(args.rows)
    args.out.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
