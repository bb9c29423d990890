"""Re-render and re-tokenize every recorded request offline and compare with the server.

    python -m prefixlab.verify                 # every recording under data/recordings/ + the chat corpus
    python -m prefixlab.verify data/recordings/<name>

For each request: render ``messages`` + ``tools`` with the recorded chat template
(the way the server does), tokenize with the recorded model's tokenizer, and compare with what
the server recorded. What can be compared depends on what was recorded:

- a recording under ``data/recordings/`` holds the server's token *count* (``usage.prompt_tokens``;
  for a request the server refused, the ``n_prompt_tokens`` of its error), not its ids: the count
  is compared, and the output says so;
- the chat corpus ``data/tokenizers/corpus/server-chat.json`` holds the server's token *ids*
  (``POST /tokenize`` of the prompt it rendered) and its ``usage.prompt_tokens``: the ids are
  compared, id by id, and the count.

Exit code 1 on any mismatch, with the session, round (or case) and what differs.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from prefixlab.cache.template import ChatRequestError
from prefixlab.cache.tokenizer import TokenizerAssetError, prompt_token_ids, tokenizer_for
from prefixlab.paths import RECORDINGS, TOKENIZER_CORPUS

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


CHAT_CORPUS = TOKENIZER_CORPUS / "server-chat.json"


@dataclass
class IdMismatch:
    case: str
    position: int | None  # the first id that differs; None when only the server's count differs
    ours: list[int]
    server: list[int]
    server_count: int


def check_chat_corpus(path: Path = CHAT_CORPUS, tokenizer=None) -> tuple[int, list[IdMismatch]]:
    """Compare the ids of every chat case the server answered with the ids it recorded.

    Returns how many cases were compared and the mismatches. A case the server refused holds no
    ids and is left out (``tests/test_chat_template.py`` checks that such a request is refused).
    """
    import hashlib

    from prefixlab.cache.tokenizer import load_template, load_tokenizer

    from .tokenizer_fixtures import load_cases

    recorded = json.loads(path.read_text(encoding="utf-8"))
    template = load_template()
    expected_sha = recorded["server"]["chat_template_sha256"]
    if hashlib.sha256(template.encode()).hexdigest() != expected_sha:
        raise RecordingError(f"{path}: field server.chat_template_sha256: recorded with another chat template "
                             f"than the course's ({expected_sha})")
    tokenizer = tokenizer or load_tokenizer()
    cases = {c["name"]: c for c in load_cases("chat-cases.json")}
    compared, mismatches = 0, []
    for rec in recorded["cases"]:
        if "error" in rec:
            continue
        if rec["name"] not in cases:
            raise RecordingError(f"{path}: case {rec['name']!r} is not in chat-cases.json")
        case = cases[rec["name"]]
        ours = prompt_token_ids(template, tokenizer, case["messages"], case.get("tools"),
                                add_generation_prompt=case.get("add_generation_prompt", True))
        server = rec["prompt_ids"]
        compared += 1
        if ours != server or len(ours) != rec["prompt_tokens"]:
            first = next((i for i, (a, b) in enumerate(zip(ours, server)) if a != b),
                         None if len(ours) == len(server) else min(len(ours), len(server)))
            mismatches.append(IdMismatch(rec["name"], first, ours, server, rec["prompt_tokens"]))
    return compared, mismatches


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m prefixlab.verify", description=__doc__.split("\n\n")[0])
    p.add_argument("recordings", nargs="*", type=Path, help="recording directories (default: all shipped)")
    p.add_argument("--tokenizer", type=Path, help="tokenizer.json to use instead of the recorded path")
    p.add_argument("--chat-corpus", type=Path, default=None,
                   help=f"a server-chat.json whose ids to compare (default with no recordings given: {CHAT_CORPUS})")
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
        print(f"{path}: {len(recording.calls)} requests, token counts compared (the recording holds no ids), "
              f"{len(mismatches)} mismatches")
        for m in mismatches:
            print(f"  #{m.seq} {m.session} round {m.round}: ours {m.ours} tokens, server {m.server}")
    corpus = args.chat_corpus or (None if args.recordings else CHAT_CORPUS)
    id_cases, corpus_failed = 0, False
    if corpus is not None:
        try:
            id_cases, id_mismatches = check_chat_corpus(corpus)
        except (RecordingError, TokenizerAssetError, OSError, KeyError, ValueError) as err:
            print(f"{p.prog}: error: {_where(err, corpus)}", file=sys.stderr)
            corpus_failed = True
        else:
            total_mismatches += len(id_mismatches)
            print(f"{corpus}: {id_cases} chat requests, token ids compared id by id, "
                  f"{len(id_mismatches)} mismatches")
            for m in id_mismatches:
                where = "same ids" if m.position is None else f"first differing id at position {m.position}"
                print(f"  {m.case}: {where}; ours {len(m.ours)} tokens, server ids {len(m.server)}, "
                      f"server prompt_tokens {m.server_count}")
    print(f"total: {total_requests} recorded requests re-rendered and re-tokenized (token counts compared)"
          + (f", {id_cases} chat requests (token ids compared)" if corpus is not None else "")
          + f", {total_mismatches} mismatches"
          + (f"; {failed} of {len(paths)} recordings could not be checked" if failed else "")
          + (f"; the chat corpus {corpus} could not be checked" if corpus_failed else ""))
    return 1 if total_mismatches or failed or corpus_failed else 0


def _where(err: Exception, path: Path) -> str:
    """The error's own message when it names the recording's files, else prefixed with the recording."""
    text = str(err) or type(err).__name__
    return text if str(path) in text else f"{path}: {text}"


if __name__ == "__main__":
    sys.exit(main())
