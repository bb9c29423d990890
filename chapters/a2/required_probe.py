"""Does ``tool_choice: "required"`` build a grammar for the live model? Ask the server and read its log.

    flock /tmp/prefixlab-server.lock python -m chapters.a2.required_probe

Starts the live model's server at ``-lv 5`` (the course's ``-lv 4`` hides ``LOG_DBG`` lines, level 5 in
``common/log.h:24``, and the analysis and grammar lines are debug lines), sends the first request of the A1 live recording
three times (``tool_choice`` auto, required, and ``response_format`` with a one-field JSON schema; one
token each, temperature 0), and prints, for each, the server log lines that say whether a grammar
reached the sampler (``Grammar (`` / ``Converted grammar``) and the template analysis's tool format
(``tool_mode:``). The notes in ``constrained_notes.md`` quote its output.
"""
from __future__ import annotations

import json
import re
import urllib.request

from chapters.a2.paths import LIVE_RECORDING

MARKERS = ("tool_mode:", "supports_tools:", "per_call_start:", "chat format:", "Grammar (", "Converted grammar",
           "JSON schema:")
SCHEMA = {"type": "object", "properties": {"tool": {"type": "string"}}, "required": ["tool"]}


def first_request() -> dict:
    """The first ``model_call`` request of the A1 live recording (miniagent's prompt)."""
    with open(LIVE_RECORDING / "miniagent-prompt.jsonl", encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if entry["type"] == "model_call":
                return entry["request"]
    raise ValueError("no model_call in the A1 live recording")


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as resp:
        return json.loads(resp.read())


def marked_lines(text: str) -> list[str]:
    """The log lines that carry a marker, each cut to 160 characters (a grammar line is long)."""
    return [line[:160] for line in text.splitlines() if any(m in line for m in MARKERS)]


def main() -> int:
    from prefixlab.recording.live import SERVER_ARGS
    from prefixlab.serving.server import free_port, named_server

    server = named_server("live", port=free_port(), extra_args=[*SERVER_ARGS, "-lv", "5"]).start()
    try:
        base = {**first_request(), "max_tokens": 1, "temperature": 0}
        ways = {"auto": {"tool_choice": "auto"}, "required": {"tool_choice": "required"},
                "json_schema": {"response_format": {"type": "json_schema", "json_schema": {"schema": SCHEMA}}}}
        for way, extra in ways.items():
            before = server.log_path.stat().st_size
            reply = post(server.openai_base_url + "/chat/completions", {**base, **extra})
            with open(server.log_path, encoding="utf-8", errors="replace") as f:
                f.seek(before)
                lines = marked_lines(f.read())
            print(f"== {way}: finish_reason {reply['choices'][0]['finish_reason']}, "
                  f"{len(lines)} marked log lines")
            for line in lines:
                print("   " + re.sub(r"\s+", " ", line))
        with open(server.log_path, encoding="utf-8", errors="replace") as f:
            analysis = [line for line in f.read().splitlines() if any(m in line for m in MARKERS[:3])]
        print("== the template analysis, whole log:")
        for line in analysis:
            print("   " + line[:160])
        print(f"log: {server.log_path}")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
