"""Re-render and re-tokenize every recorded request offline and compare with the server.

    python -m prefixlab.verify                 # every recording under data/recordings/
    python -m prefixlab.verify data/recordings/<name>

For each request: render ``messages`` + ``tools`` with the recorded chat template
(the way the server does), tokenize with the recorded model's tokenizer, and
compare the length with the server's ``usage.prompt_tokens`` (for a request the server refused,
with the ``n_prompt_tokens`` of its error). Exit code 1 on any
mismatch, with the session, round and both counts.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from prefixlab.cache.tokenizer import prompt_token_ids, tokenizer_for
from prefixlab.paths import RECORDINGS

from .format import Recording, RecordingError, find_recordings, load


@dataclass
class Mismatch:
    seq: int
    session: str
    round: int
    ours: int
    server: int


def recorded_ids(recording: Recording, tokenizer=None) -> list[list[int]]:
    """Token ids of every call of the recording, in global order."""
    tokenizer = tokenizer or tokenizer_for(recording)
    template = recording.provenance["chat_template"]["text"]
    return [prompt_token_ids(template, tokenizer, c.request["messages"], c.request.get("tools"))
            for c in recording.calls]


def check(recording: Recording, tokenizer=None) -> list[Mismatch]:
    ids = recorded_ids(recording, tokenizer)
    return [Mismatch(c.seq, c.session, c.round, len(i), c.prompt_tokens)
            for c, i in zip(recording.calls, ids) if len(i) != c.prompt_tokens]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m prefixlab.verify", description=__doc__.split("\n\n")[0])
    p.add_argument("recordings", nargs="*", type=Path, help="recording directories (default: all shipped)")
    p.add_argument("--tokenizer", type=Path, help="tokenizer.json to use instead of the recorded path")
    args = p.parse_args(argv)
    paths = args.recordings or find_recordings()
    if not paths:
        print(f"no recordings found under {RECORDINGS}", file=sys.stderr)
        return 1
    total_requests = total_mismatches = 0
    for path in paths:
        try:
            recording = load(path)
            mismatches = check(recording, tokenizer_for(recording, args.tokenizer))
        except (RecordingError, OSError, RuntimeError) as err:
            print(f"{path}: error: {err}", file=sys.stderr)
            return 1
        total_requests += len(recording.calls)
        total_mismatches += len(mismatches)
        print(f"{path}: {len(recording.calls)} requests, {len(mismatches)} mismatches")
        for m in mismatches:
            print(f"  #{m.seq} {m.session} round {m.round}: ours {m.ours} tokens, server {m.server}")
    print(f"total: {total_requests} requests re-rendered and re-tokenized, {total_mismatches} mismatches")
    return 1 if total_mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
