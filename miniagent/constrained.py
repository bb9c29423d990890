"""Constrained calls (opt-in, A2): the server may only sample a reply that is a well-formed call.

A small model often writes a call the server cannot parse. llama-server can instead constrain sampling
with a grammar: a request that carries ``response_format`` with a JSON schema is sampled so that the
reply matches the schema, token by token. ``call_schema`` builds that schema from the tool
definitions: the reply is one object ``{"tool": NAME, "arguments": {...}}``, where NAME is one of the
offered tools (with that tool's own parameters) or ``final_answer`` (with the answer text), so the
model can still finish. ``ConstrainedModel`` sends the schema with every request and turns the reply
back into an ordinary assistant message: ``tool_calls`` for a tool, ``content`` for the final answer.
The loop does not change.

The request still carries the tool list, so the prompt the model reads is the same as without the
schema; the schema itself is a sampler constraint and adds no prompt tokens. A grammar guarantees the
*format* only: which tool the model picks, and whether that helps, it does not decide.
"""
from __future__ import annotations

import json

FINAL_ANSWER = "final_answer"  # the choice that ends the task; never the name of a real tool


def call_schema(definitions: list[dict]) -> dict:
    """A JSON schema: one call of an offered tool with its own parameters, or the final answer."""
    choices = [_choice(d["function"]["name"], d["function"].get("parameters") or {"type": "object"})
               for d in definitions]
    answer = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    return {"oneOf": [*choices, _choice(FINAL_ANSWER, answer)]}


def _choice(name: str, parameters: dict) -> dict:
    return {"type": "object", "properties": {"tool": {"const": name}, "arguments": parameters},
            "required": ["tool", "arguments"]}


def response_format(definitions: list[dict]) -> dict:
    """The request field that carries the schema (llama-server reads ``json_schema.schema``)."""
    return {"type": "json_schema", "json_schema": {"name": "call", "schema": call_schema(definitions)}}


def as_message(content: str, tool_names: set[str], call_id: str) -> dict:
    """The assistant message a constrained reply stands for.

    A reply that is not a call of an offered tool (cut off by ``max_tokens``, or the schema was not
    applied) stays text, as any unparsed reply does: the loop takes it for the answer.
    """
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        return {"role": "assistant", "content": content}
    if not isinstance(value, dict) or not isinstance(value.get("arguments"), dict):
        return {"role": "assistant", "content": content}
    if value.get("tool") == FINAL_ANSWER and isinstance(value["arguments"].get("answer"), str):
        return {"role": "assistant", "content": value["arguments"]["answer"]}
    if value.get("tool") not in tool_names:
        return {"role": "assistant", "content": content}
    call = {"id": call_id, "type": "function",
            "function": {"name": value["tool"], "arguments": json.dumps(value["arguments"])}}
    return {"role": "assistant", "content": "", "tool_calls": [call]}


class ConstrainedModel:
    """A model whose every reply is sampled under ``call_schema`` and read back as a call or an answer."""

    def __init__(self, model):
        self.model, self.replies = model, 0

    def complete(self, messages: list[dict], tools: list[dict] | None = None, **params):
        if not tools:  # nothing to call: an unconstrained request, as without this wrapper
            return self.model.complete(messages, tools, **params)
        reply = self.model.complete(messages, tools, response_format=response_format(tools), **params)
        self.replies += 1
        if reply.message.get("tool_calls"):  # the server parsed a call itself: keep it
            return reply
        names = {d["function"]["name"] for d in tools}
        reply.message = as_message(reply.message.get("content") or "", names, f"constrained_{self.replies}")
        return reply
