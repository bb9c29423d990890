"""A2·3's numbers: a big tool result three ways, and one change made by rewriting a file or by an edit.

Everything here is offline and exact: the tool results are what miniagent's tools return (the default
cap, or ``miniagent.paging``), the calls are what the model would have to write, and both are counted
with the real tokenizers (``tool_blocks.renderer``). ``python -m chapters.a2.outputs_and_edits``
writes ``data/a2/outputs-edits.json`` (tests check it is current).

- Outputs: ``data/a2/big/station-log.csv`` (two weeks of readings, one of them ``ERR`` in the middle)
  read whole, read with miniagent's default cap (``tools.cap``: both ends, the middle cut), read paged
  (the first page and where the rest is).
- Edits: the same one-line change made with ``write_file`` (the whole new file in the call) or with
  ``edit_file`` (the old and the new text), on the toy repository's ``units/convert.py`` and on a copy of
  miniagent's ``tools.py`` (``data/a2/edit/tools.py.txt``, as it was on 2026-12-04). Completion tokens of a
  call: the assistant turn holding it, as the live model's template renders it (what the model generates).
"""
from __future__ import annotations

import json

from miniagent.paging import paged
from miniagent.tools import OUTPUT_LIMIT, cap

from chapters.a2.paths import A2_DATA, OUTPUTS_EDITS
from chapters.a2.tool_blocks import renderer
from prefixlab.cache.tokenizer import text_token_ids
from prefixlab.paths import TOY_REPO

BIG = A2_DATA / "big" / "station-log.csv"
BIG_PATH = "logs/station-log.csv"        # where the lesson's sessions put it in the repository
NEEDLE = "ERR"                            # the one failed reading, in the middle of the file
EDITS = {
    "convert": (TOY_REPO / "units" / "convert.py", "units/convert.py", r"^\s*(\d+", r"^\s*(-?\d+"),
    "tools": (A2_DATA / "edit" / "tools.py.txt", "miniagent/tools.py",
                 "OUTPUT_LIMIT = 8000", "OUTPUT_LIMIT = 12000"),
}


def text_tokens(text: str, model: str = "course") -> int:
    return len(text_token_ids(renderer(model).tokenizer, text))


def call_tokens(name: str, arguments: dict, model: str = "live") -> int:
    """Tokens of the assistant turn holding one call of ``name``: what the model has to generate."""
    r = renderer(model)
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}]}
    before_text = r.prompt(messages)  # ends where the model starts writing
    after_text = r.prompt(messages + [call, {"role": "user", "content": "V"}])
    end = after_text.index("<|im_end|>", len(before_text)) + len("<|im_end|>")  # the model's turn ends there
    full = text_token_ids(r.tokenizer, after_text[:end])
    before = text_token_ids(r.tokenizer, before_text)
    assert full[:len(before)] == before, "the call's turn must extend the prompt"
    return len(full) - len(before)


def outputs() -> dict:
    text = BIG.read_text(encoding="utf-8")
    capped, first_page = cap(text), paged(text, BIG_PATH)
    return {"file": str(BIG.relative_to(A2_DATA.parent)), "lines": len(text.splitlines()), "chars": len(text),
            "needle_line": next(i for i, line in enumerate(text.splitlines(), 1) if NEEDLE in line),
            "output_limit": OUTPUT_LIMIT,
            "whole": {"tokens": text_tokens(text), "has_needle": NEEDLE in text},
            "capped": {"tokens": text_tokens(capped), "has_needle": NEEDLE in capped,
                       "cut_chars": len(text) - OUTPUT_LIMIT},
            "paged": {"tokens": text_tokens(first_page), "has_needle": NEEDLE in first_page,
                      "pointer": first_page.splitlines()[-1]}}


def edits() -> dict:
    out = {}
    for name, (source, path, old, new) in EDITS.items():
        text = source.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{name}: the old text must occur once"
        out[name] = {"file": path.rsplit("/", 1)[-1], "lines": len(text.splitlines()),
                     "write_file": call_tokens("write_file", {"path": path, "content": text.replace(old, new)}),
                     "edit_file": call_tokens("edit_file", {"path": path, "old": old, "new": new})}
        out[name]["ratio"] = round(out[name]["write_file"] / out[name]["edit_file"], 1)
    return out


def measure() -> dict:
    return {"what": "A2·3: a big tool result three ways, and one change by rewrite or edit "
                    "(python -m chapters.a2.outputs_and_edits)", "outputs": outputs(), "edits": edits()}


def main() -> int:
    OUTPUTS_EDITS.write_text(json.dumps(measure(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUTS_EDITS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
