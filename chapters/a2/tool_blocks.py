"""The tool block of a request: what the chat template writes for the ``tools`` field, and its tokens.

Everything here is offline: the request is rendered as llama-server renders it
(``prefixlab.cache.template.render_chat``) and counted with the real tokenizer of the model.

- ``course``: the course server (SmolLM2-135M, served with Qwen3's template, ``data/templates/``);
- ``live``: the live model (Qwen2.5 Coder 0.5B, its own template, as the server reported it in the
  A1·L recording's manifest).

Both templates put the tool block **inside the system turn, after the system text**: the system text,
then ``# Tools``, one JSON line per tool, and the instruction to answer in ``<tool_call>`` tags.
``tool_block`` cuts that block out of the rendered prompt; ``block_tokens`` counts it as the difference
of two prompts (with and without ``tools``), so the count is exactly what the tools add to a request.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

import yaml

from chapters.a2.paths import LIVE_RECORDING, LIVE_TOKENIZER, TOOL_SETS
from prefixlab.cache.template import render_chat
from prefixlab.cache.tokenizer import load_template, load_tokenizer, text_token_ids
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER

MODELS = ("course", "live")


@dataclass(frozen=True)
class Renderer:
    name: str
    template: str
    tokenizer: object

    def prompt(self, messages: list[dict], tools: list[dict] | None = None) -> str:
        return render_chat(self.template, messages, tools)

    def tokens(self, messages: list[dict], tools: list[dict] | None = None) -> int:
        return len(text_token_ids(self.tokenizer, self.prompt(messages, tools)))


@lru_cache(maxsize=None)
def renderer(model: str = "course") -> Renderer:
    """The template and tokenizer of ``model`` (``course`` or ``live``)."""
    if model == "course":
        return Renderer(model, load_template(CHAT_TEMPLATE), load_tokenizer(TOKENIZER))
    if model == "live":
        manifest = json.loads((LIVE_RECORDING / "manifest.json").read_text(encoding="utf-8"))
        return Renderer(model, manifest["provenance"]["chat_template"]["text"], load_tokenizer(LIVE_TOKENIZER))
    raise ValueError(f"unknown model {model!r}; choose one of {', '.join(MODELS)}")


def first_request(system: str, task: str) -> list[dict]:
    return [{"role": "system", "content": system}, {"role": "user", "content": task}]


def tool_block(system: str, tools: list[dict], model: str = "course") -> str:
    """The text the template adds for ``tools``: everything between the system text and the turn's end."""
    r = renderer(model)
    messages = first_request(system, "TASK")
    with_tools, without = r.prompt(messages, tools), r.prompt(messages, None)
    start = with_tools.index(system) + len(system)
    end = with_tools.index("<|im_end|>", start)
    block = with_tools[start:end]
    if with_tools[:start] + with_tools[end:] != without:  # the block is all the tools change
        raise AssertionError(f"{model}: the tools change more than one block of the prompt")
    return block


def block_tokens(system: str, tools: list[dict], task: str = "TASK", model: str = "course") -> int:
    """Tokens the tools add to the first request: prompt with ``tools`` minus prompt without."""
    r = renderer(model)
    messages = first_request(system, task)
    return r.tokens(messages, tools) - r.tokens(messages, None)


def system_tokens(system: str, model: str = "course") -> int:
    """Tokens of the system text itself (tokenized alone)."""
    return len(text_token_ids(renderer(model).tokenizer, system))


# -- A2·2: three tool sets ------------------------------------------------------------------------

def definition(name: str, description: str, params: dict[str, str]) -> dict:
    """An OpenAI tool definition in miniagent's form (``miniagent.tools.tool``): every parameter a required string."""
    properties = {p: {"type": "string", "description": d} for p, d in params.items()}
    return {"type": "function", "function": {"name": name, "description": description,
                                             "parameters": {"type": "object", "properties": properties,
                                                            "required": list(params)}}}


@lru_cache(maxsize=None)
def _sets() -> dict:
    return yaml.safe_load(TOOL_SETS.read_text(encoding="utf-8"))


def tool_set_names() -> list[str]:
    return list(_sets()["sets"])


def tool_set(name: str) -> list[dict]:
    """The definitions of one set of ``data/a2/tool-sets.yml``, in its order."""
    sets = _sets()["sets"]
    if name not in sets:
        raise ValueError(f"unknown tool set {name!r}; choose one of {', '.join(sets)}")
    return [definition(t["name"], t["description"], t.get("params") or {}) for t in sets[name]["tools"]]


def tool_set_handlers(name: str) -> dict[str, str | None]:
    """Offered name -> the miniagent tool that carries the call out (None: offered only)."""
    tool_set(name)  # an unknown name raises
    return {t["name"]: t.get("handler") for t in _sets()["sets"][name]["tools"]}


def tool_set_info(name: str) -> dict:
    return {k: v for k, v in _sets()["sets"][name].items() if k != "tools"}


# -- the numbers, written to data/a2/tool-blocks.json (tests check the file is current) ---------------

CLOUD_MODEL = "claude-sonnet-5-5"   # the dated price table's current mid-size model (data/prices/anthropic.yml)
SESSION_RECORDING = "a1-loop-smollm2-llamacpp"   # A1·2's twenty-round session: the session we re-price
SESSION = "long"


def session_rows(set_name: str) -> list[dict]:
    """A1·2's twenty requests with the four A1 tools swapped for ``set_name``'s block (course template).

    The conversation stays the recorded one; only the tool block changes size, so each request's prompt
    is its recorded ``prompt_tokens`` minus the four tools' block plus this set's block.
    """
    from prefixlab.paths import RECORDINGS
    from prefixlab.recording.format import load

    rec = load(RECORDINGS / SESSION_RECORDING)
    calls = [c for c in rec.calls if c.session == SESSION]
    system = calls[0].request["messages"][0]["content"]
    first_user = calls[0].request["messages"][1]["content"]
    recorded_tools = calls[0].request.get("tools") or []
    old = block_tokens(system, recorded_tools, first_user)
    new = block_tokens(system, tool_set(set_name), first_user)
    return [{"prompt_tokens": c.prompt_tokens - old + new, "block_tokens": new} for c in calls]


def cloud_cost(block: int, requests: int, model: str = CLOUD_MODEL) -> dict:
    """The tool block's input cost over ``requests`` requests, USD: sent fresh every time, or written to
    the cache once (5-minute write) and read back afterwards (the block is the very start of the prompt)."""
    from prefixlab.cache.pricing import model_price

    p = model_price(model)
    per_token = p.base_input / 1e6
    return {"model": p.name, "source": p.source, "base_input": p.base_input,
            "write_5m": p.multipliers["write_5m"], "read": p.multipliers["read"],
            "uncached": block * requests * per_token,
            "cached": block * per_token * (p.multipliers["write_5m"] + (requests - 1) * p.multipliers["read"])}


def measure() -> dict:
    from chapters.a2.experiments.call_shapes import SYSTEM, TEXT_FORMAT, four_definitions, tool_list
    from miniagent.tools import Workspace
    from prefixlab.paths import TOY_REPO

    four = four_definitions(Workspace(TOY_REPO))
    text_tools = TEXT_FORMAT.format(tools=tool_list(four))
    out = {"what": "A2: tool blocks rendered offline and counted with the real tokenizers "
                   "(python -m chapters.a2.tool_blocks)",
           "a2_1": {"system_tokens": system_tokens(SYSTEM),
                    "four_tools": {m: block_tokens(SYSTEM, four, model=m) for m in MODELS},
                    "text_tools": {m: len(text_token_ids(renderer(m).tokenizer, text_tools)) for m in MODELS}},
           "a2_2": {"recording": SESSION_RECORDING, "session": SESSION, "sets": {}}}
    for name in tool_set_names():
        rows = session_rows(name)
        block = rows[0]["block_tokens"]
        total = sum(r["prompt_tokens"] for r in rows)
        out["a2_2"]["sets"][name] = {
            "tools": len(tool_set(name)), "block_tokens": block,
            "block_tokens_live": block_tokens(SYSTEM, tool_set(name), model="live"),
            "requests": len(rows), "session_prompt_tokens": total, "session_block_tokens": block * len(rows),
            "share_percent": round(100 * block * len(rows) / total), "cost": cloud_cost(block, len(rows))}
    return out


def main() -> int:
    from chapters.a2.paths import TOOL_BLOCKS
    TOOL_BLOCKS.write_text(json.dumps(measure(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {TOOL_BLOCKS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
