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

from prefixlab.cache.template import ChatRequestError
from prefixlab.cache.tokenizer import TokenizerAssetError, prompt_token_ids, tokenizer_for
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
    ids = []
    for c in recording.calls:
        try:
            ids.append(prompt_token_ids(template, tokenizer, c.request["messages"], c.request.get("tools")))
        except ChatRequestError as err:  # a request the server would not have taken
            raise RecordingError(f"{recording.path}: order[{c.seq}] (session {c.session}, round {c.round}, "
                                 f"entry {c.entry_id}): the chat template (manifest.json field "
                                 f"provenance.chat_template.text) cannot render this request ({err})") from None
    return ids


def check(recording: Recording, tokenizer=None) -> list[Mismatch]:
    ids = recorded_ids(recording, tokenizer)
    return [Mismatch(c.seq, c.session, c.round, len(i), c.prompt_tokens)
            for c, i in zip(recording.calls, ids) if len(i) != c.prompt_tokens]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m prefixlab.verify", description=__doc__.split("\n\n")[0])
    p.add_argument("recordings", nargs="*", type=Path, help="recording directories (default: all shipped)")
    p.add_argument("--tokenizer", type=Path, help="tokenizer.json to use instead of the recorded path")
    args = p.parse_args(argv)
    if args.tokenizer is not None and not args.tokenizer.is_file():
        p.error(f"--tokenizer {args.tokenizer}: no such file")
    paths = args.recordings or find_recordings()
    if not paths:
        print(f"{p.prog}: error: no recordings found under {RECORDINGS}", file=sys.stderr)
        return 1
    total_requests = total_mismatches = failed = 0
    for path in paths:
        try:
            recording = load(path)
            mismatches = check(recording, tokenizer_for(recording, args.tokenizer))
        except (RecordingError, TokenizerAssetError, OSError) as err:
            # one line naming the file and the field; the next recording is still checked
            print(f"{p.prog}: error: {_where(err, path)}", file=sys.stderr)
            failed += 1
            continue
        total_requests += len(recording.calls)
        total_mismatches += len(mismatches)
        print(f"{path}: {len(recording.calls)} requests, {len(mismatches)} mismatches")
        for m in mismatches:
            print(f"  #{m.seq} {m.session} round {m.round}: ours {m.ours} tokens, server {m.server}")
    print(f"total: {total_requests} requests re-rendered and re-tokenized, {total_mismatches} mismatches"
          + (f"; {failed} of {len(paths)} recordings could not be checked" if failed else ""))
    return 1 if total_mismatches or failed else 0


def _where(err: Exception, path: Path) -> str:
    """The error's own message when it names the recording's files, else prefixed with the recording."""
    text = str(err) or type(err).__name__
    return text if str(path) in text else f"{path}: {text}"


if __name__ == "__main__":
    sys.exit(main())
