"""Record what llama-server says about our tokenizer and chat-template cases.

The offline tests compare the shipped tokenizer and :func:`render_chat` with
these recordings; the online tests ask a live server again.  Inputs are
hand-written JSON in ``data/tokenizers/corpus/`` (``text-cases.json``,
``chat-cases.json``); this module writes the server's answers next to them:

* ``server-tokenize.json``  -- ``POST /tokenize`` ids of every text case;
* ``server-unicode-sweep.json`` -- sha256 of the ids of every code point
  (U+0000..U+10FFFF without surrogates) in a few contexts, chunk by chunk;
* ``server-chat.json`` -- per chat case: ``POST /apply-template`` prompt,
  ``POST /tokenize`` ids of that prompt, and ``usage.prompt_tokens`` of a real
  ``/v1/chat/completions`` call (``max_tokens: 1``); or the server's error;
* ``server-random.json`` -- digests of the server's ids / prompt for seeded
  random texts and chat requests (:func:`random_cases`).

Re-record (starts its own server through prefixlab.serving.server)::

    python -m prefixlab.tokenizer_fixtures record
    python -m prefixlab.tokenizer_fixtures record --url http://127.0.0.1:18080
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import sys
from pathlib import Path
from typing import Iterator

from prefixlab.paths import TOKENIZER_CORPUS
from prefixlab.serving.client import CHAT_TOKENIZE, ServerClient, ServerError

SWEEP_CHUNK = 4096  # code points per request / per stored hash


# ---- the requests the chat path makes -----------------------------------------------------

def tokenize_body(text: str) -> dict:
    """What ``ServerClient.tokenize`` sends: the chat path's way of tokenizing."""
    return {"content": text, **CHAT_TOKENIZE}


def chat_body(case: dict) -> dict:
    """The request body of a chat case (only the fields the template depends on)."""
    body = {"messages": case["messages"]}
    if "tools" in case:
        body["tools"] = case["tools"]
    if "add_generation_prompt" in case:
        body["add_generation_prompt"] = case["add_generation_prompt"]
    return body


# ---- unicode sweep -----------------------------------------------------------------------

def sweep_piece(cp: int) -> str:
    """One code point in the contexts the split rules care about."""
    c = chr(cp)
    return f"{c} x{c}1{c}{c}  {c}'s\n"


def sweep_chunks(chunk: int = SWEEP_CHUNK) -> Iterator[tuple[int, int, str]]:
    """(first, last, text) for every chunk of U+0000..U+10FFFF, surrogates skipped."""
    for start in range(0, 0x110000, chunk):
        cps = [c for c in range(start, start + chunk) if not 0xD800 <= c <= 0xDFFF]
        if cps:
            yield start, start + chunk - 1, "".join(sweep_piece(c) for c in cps)


def ids_digest(ids: list[int]) -> str:
    return hashlib.sha256(json.dumps(ids, separators=(",", ":")).encode()).hexdigest()


# ---- random cases (seeded): many small variations the hand-written cases miss --------------

TEXT_ATOMS = ["a", "Z", "hello", " world", "'s", "'T", "'ll", "中", "文字", "😀", "👨\u200d👩\u200d👧",
              " ", "  ", "\t", "\n", "\r\n", "\n\n", "1", "23", "٣", "①", "<|im_start|>",
              "<|im_end|>", "<|endoftext|>", "<tool_call>", "{", "}", "\"", ":", ",", "\u00a0",
              "\u3000", "\u0301", "é", "-", "_", "//", "#", "\x04", "\x00", "\x7f", "\U00040000",
              "\u1c89", "。", "，", "ー", "\u2028", "  \n  ", "    ", "$", "€", "ﬁ", "Ⅻ", "½"]
CHAT_ATOMS = ["a", "hello", " world", "中文", " ", "\n", "\n\n", "<think>", "</think>",
              "<tool_response>", "</tool_response>", "1.5", "😀", "\t", "  x  ", "'s", "<|im_end|>",
              "\\", "\"", "é"]


def random_text(rng) -> str:
    return "".join(rng.choice(TEXT_ATOMS) for _ in range(rng.randint(1, 30)))


def _json_value(rng, words, depth=0):
    r = rng.random()
    if depth > 2 or r < 0.3:
        return rng.choice([0, 1, -7, 2**40, 1.0, 0.1, 2.5e-7, 1e21, 123.456789, True, False, None,
                           words(), "中\n\"x\""])
    if r < 0.6:
        return [_json_value(rng, words, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["a", "b", "z", "中", "k k", "_"]) + str(i): _json_value(rng, words, depth + 1)
            for i in range(rng.randint(0, 3))}


def random_chat_case(rng, name: str) -> dict:
    """A valid chat request: random roles, contents, tool calls (string or object arguments)."""
    def words():
        return "".join(rng.choice(CHAT_ATOMS) for _ in range(rng.randint(0, 8)))

    def arguments():
        value = {"p": _json_value(rng, words), "q": _json_value(rng, words)}
        if rng.random() < 0.5:
            return value
        return json.dumps(value, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]),
                          separators=rng.choice([(",", ":"), (", ", ": "), (" , ", " : ")]))

    tools = [{"type": "function", "function": {
        "name": f"t{i}", "description": words(),
        "parameters": {"type": "object", "properties": {"x": {
            "type": "number", "default": _json_value(rng, words), "description": words()}}}}}
        for i in range(2)]
    msgs = []
    if rng.random() < 0.6:
        msgs.append({"role": "system", "content": words()})
    for _ in range(rng.randint(1, 4)):
        msgs.append({"role": "user", "content": words()})
        if rng.random() < 0.7:
            m = {"role": "assistant", "content": rng.choice([None, "", words()])}
            if rng.random() < 0.6:
                m["tool_calls"] = [{"id": f"c{k}", "type": "function",
                                    "function": {"name": "t0", "arguments": arguments()}}
                                   for k in range(rng.randint(1, 2))]
                if m["content"] is None and rng.random() < 0.5:
                    del m["content"]
            if rng.random() < 0.2:
                m["reasoning_content"] = words()
            msgs.append(m)
            for k in range(len(m.get("tool_calls", []))):
                msgs.append({"role": "tool", "tool_call_id": f"c{k}", "content": words()})
            if "tool_calls" in m and rng.random() < 0.5:
                msgs.append({"role": "assistant", "content": words() or "done"})
    if msgs[-1]["role"] == "assistant":
        msgs.append({"role": "user", "content": words()})
    case = {"name": name, "messages": msgs}
    if rng.random() < 0.5:
        case["tools"] = tools
    return case


def random_cases(seed: int = 1, n_texts: int = 500, n_chats: int = 150) -> dict:
    import random
    rng = random.Random(seed)
    return {"seed": seed,
            "texts": [{"name": f"text-{i}", "text": random_text(rng)} for i in range(n_texts)],
            "chats": [random_chat_case(rng, f"chat-{i}") for i in range(n_chats)]}


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---- recording ---------------------------------------------------------------------------

def load_cases(name: str, corpus_dir: Path = TOKENIZER_CORPUS) -> list[dict]:
    return json.loads((corpus_dir / name).read_text(encoding="utf-8"))["cases"]


def _write(path: Path, data: dict) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)  # never leave a half-written fixture


def server_description(client: ServerClient, provenance: dict | None) -> dict:
    props = client.props()
    template = props.get("chat_template") or ""
    return {
        "recorded_at_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "model": Path(str(props.get("model_path"))).name,
        "build_info": props.get("build_info"),
        "chat_template_sha256": hashlib.sha256(template.encode("utf-8")).hexdigest(),
        "chat_template_caps": props.get("chat_template_caps"),
        "bos_token": props.get("bos_token"),
        "eos_token": props.get("eos_token"),
        # Full provenance (binary/model sha256, flags) when we started the server ourselves.
        "provenance": provenance,
    }


def record(client: ServerClient, corpus_dir: Path = TOKENIZER_CORPUS, provenance: dict | None = None,
           log=print) -> None:
    server = server_description(client, provenance)
    if server["provenance"] and "chat_template" in server["provenance"]:
        server["provenance"]["chat_template"].pop("text", None)  # it is in data/templates/

    texts = []
    for case in load_cases("text-cases.json", corpus_dir):
        ids = client.tokenize(case["text"])
        texts.append({"name": case["name"], "ids": ids,
                      "same_with_add_special_false": client.tokenize_default(case["text"]) == ids})
    _write(corpus_dir / "server-tokenize.json", {"server": server, "request": tokenize_body("<text>"),
                                                 "cases": texts})
    log(f"tokenize: {len(texts)} cases")

    chunks = []
    for first, last, text in sweep_chunks():
        ids = client.tokenize(text)
        chunks.append({"first": f"U+{first:04X}", "last": f"U+{last:04X}", "n_ids": len(ids),
                       "sha256": ids_digest(ids)})
    _write(corpus_dir / "server-unicode-sweep.json",
           {"server": server, "piece": "f\"{c} x{c}1{c}{c}  {c}'s\\n\" per code point c",
            "chunk": SWEEP_CHUNK, "chunks": chunks})
    log(f"unicode sweep: {len(chunks)} chunks")

    chats = []
    for case in load_cases("chat-cases.json", corpus_dir):
        body = chat_body(case)
        entry: dict = {"name": case["name"]}
        try:
            prompt = client.apply_template(body)
            entry.update(prompt=prompt, prompt_ids=client.tokenize(prompt),
                         prompt_tokens=client.prompt_tokens(body))
        except ServerError as e:
            entry["error"] = {"status": e.status, "message": e.message}
            try:  # does the chat endpoint refuse it as well?
                client.prompt_tokens(body)
                entry["error"]["chat_completions"] = "accepted"
            except ServerError as e2:
                entry["error"]["chat_completions"] = {"status": e2.status, "message": e2.message}
        chats.append(entry)
    _write(corpus_dir / "server-chat.json", {"server": server, "cases": chats})
    log(f"chat: {len(chats)} cases")

    # Random cases: inputs are regenerated from the seed, only digests are stored.
    rnd = random_cases()
    texts = []
    for case in rnd["texts"]:
        ids = client.tokenize(case["text"])
        texts.append({"name": case["name"], "n_ids": len(ids), "sha256": ids_digest(ids)})
    chats = []
    for case in rnd["chats"]:
        prompt = client.apply_template(chat_body(case))
        ids = client.tokenize(prompt)
        chats.append({"name": case["name"], "prompt_chars": len(prompt),
                      "prompt_sha256": text_digest(prompt), "n_ids": len(ids),
                      "ids_sha256": ids_digest(ids)})
    _write(corpus_dir / "server-random.json",
           {"server": server, "generator": "prefixlab.tokenizer_fixtures.random_cases",
            "seed": rnd["seed"], "texts": texts, "chats": chats})
    log(f"random: {len(texts)} texts, {len(chats)} chats")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m prefixlab.tokenizer_fixtures")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="ask llama-server and rewrite the server-*.json fixtures")
    r.add_argument("--url", help="a running server (default: start one with prefixlab.serving.server)")
    args = p.parse_args(argv)
    if args.url:
        record(ServerClient(args.url))
        return 0
    from prefixlab.serving.server import LlamaServer  # only needed when we start the server ourselves

    with LlamaServer(port=0) as srv:
        record(ServerClient(srv.url), provenance=srv.provenance())
    return 0


if __name__ == "__main__":
    sys.exit(main())
