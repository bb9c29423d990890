"""Tool calls a model wrote as text instead of as ``tool_calls``.

A small model often means to call a tool but writes the call into its answer, for example::

    ```json
    {"name": "read_file", "arguments": {"path": "README.md"}}
    ```

The server's parser only picks up the exact format of the model's chat template (for Qwen2.5:
the JSON inside ``<tool_call>...</tool_call>``), so such an answer arrives as plain text and the
loop would take it for the final answer. ``lift_text_calls`` finds these calls and turns them
into ordinary ``tool_calls``; ``TextCalls`` wraps a client (model.py's ChatModel) so that every
answer goes through it (``--text-calls``). Neither the loop nor the client changes.

What counts as a call: a JSON object with a ``name`` that is one of the offered tools and an
``arguments`` object (or a string holding one). Anything else stays text, so a JSON example in
a real answer is not run by accident. The call's text is taken out of the message's content;
whatever prose is left stays.
"""
from __future__ import annotations

import json
import re

_DECODER = json.JSONDecoder()
# What may wrap a call: a Markdown code fence, or the template's own <tool_call> tags.
_WRAPPER_BEFORE = re.compile(r"(```[a-zA-Z]*\s*|<tool_call>\s*)$")
_WRAPPER_AFTER = re.compile(r"\s*```|\s*</tool_call>")  # matched at the end of the call


def _as_call(value, tool_names: set[str]) -> tuple[str, dict] | None:
    """(name, arguments) if ``value`` is a call of an offered tool, else None."""
    if not isinstance(value, dict) or value.get("name") not in tool_names:
        return None
    arguments = value.get("arguments", value.get("parameters"))
    if isinstance(arguments, str):  # some models put the arguments in as a JSON string
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return None
    if not isinstance(arguments, dict):
        return None
    return value["name"], arguments


def find_text_calls(text: str, tool_names: set[str]) -> tuple[list[tuple[str, dict]], str]:
    """The calls written in ``text`` and the text without them (wrappers removed, ends stripped)."""
    calls, kept, position = [], [], 0
    start = text.find("{")
    while start != -1:
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        call = _as_call(value, tool_names)
        if call is None:
            start = text.find("{", end)
            continue
        calls.append(call)
        before = text[position:start]
        wrapper = _WRAPPER_BEFORE.search(before)
        kept.append(before[:wrapper.start()] if wrapper else before)
        after = _WRAPPER_AFTER.match(text, end)
        position = after.end() if after else end
        start = text.find("{", position)
    kept.append(text[position:])
    return calls, "".join(kept).strip()


def lift_text_calls(message: dict, tools: list[dict], id_prefix: str) -> dict:
    """``message`` with the calls written in its content moved into ``tool_calls``.

    A message that already has ``tool_calls``, or whose text holds no call, comes back unchanged.
    Call ids are ``<id_prefix>_1``, ``_2``, ...: the same answer always gives the same ids.
    """
    if message.get("tool_calls"):
        return message
    names = {tool["function"]["name"] for tool in tools}
    calls, rest = find_text_calls(message.get("content") or "", names)
    if not calls:
        return message
    return {"role": "assistant", "content": rest,
            "tool_calls": [{"id": f"{id_prefix}_{i}", "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}
                           for i, (name, arguments) in enumerate(calls, 1)]}


class TextCalls:
    """A client whose answers also carry the tool calls the model wrote as text: wraps ``model``
    (anything with ``complete``, e.g. ChatModel) and lifts the calls out of every answer."""

    def __init__(self, model):
        self.model, self.replies = model, 0

    def complete(self, messages: list[dict], tools: list[dict] | None = None, **params):
        reply = self.model.complete(messages, tools, **params)
        self.replies += 1  # the ids name the answer: text_call_<answer>_<call>
        if tools:
            reply.message = lift_text_calls(reply.message, tools, f"text_call_{self.replies}")
        return reply

    def __getattr__(self, name):  # everything else is the wrapped client's (base_url, timeout, ...)
        return getattr(self.model, name)
