"""Count A2's four-ways recording offline: for each way, how often the reply is a usable call.

Per run (one seed of one way, ``chapters/a2/experiments/four_ways.py``), from the recorded session:

- ``well_formed``: the reply the loop would act on is a call (``tool_calls``), whatever made it one: the
  server's parser (auto, required), the schema read back (``miniagent.constrained``), or a call lifted
  from the text (``miniagent.text_calls``); for the text way after its one retry;
- ``schema_valid``: well formed, and its arguments are valid under the tool's own JSON schema (the
  ``parameters`` the request offered; checked with ``jsonschema``);
- ``right_tool``: schema valid, and it is what A1's task asks for first: ``run_command`` with a command
  that runs ``tools/check.py``.

Tokens and seconds are per request, as the server reported them (``usage``, ``timings``); the seconds
were measured on a shared, loaded 2-core machine and are no timing result.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import jsonschema

from prefixlab.recording.format import load

WAYS = ("auto", "required", "schema", "text")


@dataclass(frozen=True)
class Run:
    way: str
    seed: int
    requests: int
    well_formed: bool
    schema_valid: bool
    right_tool: bool
    completion_tokens: int   # summed over the run's requests
    prompt_tokens: int       # of its first request
    seconds: float           # prompt + generation, summed over its requests (loaded machine)


def valid_arguments(call: dict, tools: list[dict]) -> bool:
    """The call's arguments parse as JSON and are valid under the offered tool's ``parameters``."""
    definitions = {d["function"]["name"]: d["function"].get("parameters") or {} for d in tools}
    name = call["function"]["name"]
    try:
        arguments = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError:
        return False
    if name not in definitions:
        return False
    try:
        jsonschema.validate(arguments, definitions[name])
    except jsonschema.ValidationError:
        return False
    return True


def is_check_run(call: dict) -> bool:
    if call["function"]["name"] != "run_command":
        return False
    return "tools/check.py" in str(json.loads(call["function"]["arguments"]).get("command", ""))


def run_of(recording, info: dict) -> Run:
    calls = recording.session_calls(info["id"])
    entries = [json.loads(line) for line in (recording.path / info["file"]).read_text(encoding="utf-8").splitlines()]
    last = [e["message"] for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"][-1]
    tools = calls[0].request["tools"]
    made = last.get("tool_calls") or []
    valid = bool(made) and all(valid_arguments(c, tools) for c in made)
    seconds = sum((c.response.get("timings") or {}).get("prompt_ms", 0)
                  + (c.response.get("timings") or {}).get("predicted_ms", 0) for c in calls) / 1000
    return Run(info["variant"], info["seed"], len(calls), bool(made), valid, valid and is_check_run(made[0]),
               sum(c.response["usage"]["completion_tokens"] for c in calls), calls[0].response["usage"]["prompt_tokens"],
               round(seconds, 3))


def runs(path: Path) -> list[Run]:
    recording = load(path)
    return [run_of(recording, info) for info in recording.manifest["sessions"]]


def summary(path: Path) -> dict[str, dict]:
    """Per way: runs, the three counts, and mean tokens and seconds per request."""
    table = {}
    for way in WAYS:
        mine = [r for r in runs(path) if r.way == way]
        requests = sum(r.requests for r in mine) or 1
        table[way] = {"runs": len(mine), "well_formed": sum(r.well_formed for r in mine),
                      "schema_valid": sum(r.schema_valid for r in mine), "right_tool": sum(r.right_tool for r in mine),
                      "wrong_tool": sum(r.schema_valid and not r.right_tool for r in mine),
                      "requests": sum(r.requests for r in mine),
                      "prompt_tokens": sorted({r.prompt_tokens for r in mine}),
                      "completion_tokens_per_request": round(sum(r.completion_tokens for r in mine) / requests, 1),
                      "seconds_per_request_loaded": round(sum(r.seconds for r in mine) / requests, 1)}
    return table


def prompt_costs(path: Path) -> dict[str, int]:
    """What each way adds to the prompt, counted offline on the live template and tokenizer: the six
    tools' block (every way sends it), and the schema if it were written into the prompt instead of
    being sent as a sampler constraint (``response_format`` adds nothing to the prompt)."""
    from chapters.a2.tool_blocks import block_tokens, renderer
    from miniagent.constrained import call_schema
    from prefixlab.cache.tokenizer import text_token_ids

    first = load(path).calls[0].request
    system, task = first["messages"][0]["content"], first["messages"][-1]["content"]
    schema_text = json.dumps(call_schema(first["tools"]))
    return {"tool_block": block_tokens(system, first["tools"], task, model="live"),
            "schema_as_text": len(text_token_ids(renderer("live").tokenizer, schema_text))}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 % for z = 1.96) for k successes in n tries, as fractions: a few
    runs say little, and the interval says how little."""
    if n <= 0:
        raise ValueError("wilson: no tries")
    if not 0 <= k <= n:
        raise ValueError(f"wilson: {k} successes in {n} tries")
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def measure(path: Path | None = None) -> dict:
    """What ``data/a2/four-ways.json`` holds: per way the counts and their 95 % intervals (in percent,
    rounded to one place), and the prompt costs; the evolution map reads it."""
    from chapters.a2.paths import FOUR_WAYS_RECORDING

    path = path or FOUR_WAYS_RECORDING
    ways = summary(path)
    for row in ways.values():
        for count in ("well_formed", "schema_valid", "right_tool"):
            low, high = wilson(row[count], row["runs"])
            row[f"{count}_interval_percent"] = [round(100 * low, 1), round(100 * high, 1)]
    return {"recording": path.name, "ways": ways, "prompt": prompt_costs(path)}


def main() -> int:
    """Print the table of the shipped recording and write ``data/a2/four-ways.json``:
    ``python -m chapters.a2.four_ways``."""
    from chapters.a2.paths import FOUR_WAYS_SUMMARY

    data = measure()
    for way, row in data["ways"].items():
        print(f"{way:9} {json.dumps(row)}")
    print(f"prompt: {json.dumps(data['prompt'])}")
    FOUR_WAYS_SUMMARY.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {FOUR_WAYS_SUMMARY}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
