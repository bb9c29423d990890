"""Compare two recordings request by request: did a re-recording reproduce the shipped numbers?

    python -m prefixlab.compare data/recordings/<name> _build/recordings/<a new recording of it>
"""
from __future__ import annotations

import argparse
import sys

from .format import RecordingError, load


def compare(a, b) -> list[str]:
    """Lines describing every difference of session layout, prompt_tokens, cached_tokens or refusal."""
    diffs = []
    sessions_a = [s["id"] for s in a.manifest["sessions"]]
    sessions_b = [s["id"] for s in b.manifest["sessions"]]
    if sessions_a != sessions_b:
        diffs.append(f"sessions differ: {sessions_a} vs {sessions_b}")
    for sid in (s for s in sessions_a if s in sessions_b):
        calls_a, calls_b = a.session_calls(sid), b.session_calls(sid)
        if len(calls_a) != len(calls_b):
            diffs.append(f"{sid}: {len(calls_a)} requests vs {len(calls_b)}")
        for x, y in zip(calls_a, calls_b):
            if (x.prompt_tokens, x.cached_tokens, x.refused) != (y.prompt_tokens, y.cached_tokens, y.refused):
                diffs.append(f"{sid} round {x.round}: prompt/cached {shown(x)} vs {shown(y)}")
    return diffs


def shown(call) -> str:
    """prompt/cached of a request, or prompt/refused (the server's error) of a refused one."""
    cached = f"refused ({call.refused})" if call.refused is not None else str(call.cached_tokens)
    return f"{call.prompt_tokens}/{cached}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m prefixlab.compare", description=__doc__.split("\n\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    args = p.parse_args(argv)
    try:
        a, b = load(args.a), load(args.b)
    except RecordingError as err:
        print(f"{p.prog}: error: {err}", file=sys.stderr)
        return 2
    diffs = compare(a, b)
    for line in diffs:
        print(line)
    print(f"{len(a.calls)} vs {len(b.calls)} requests; {len(diffs)} differences in prompt_tokens / cached_tokens")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
