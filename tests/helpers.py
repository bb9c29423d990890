"""Test helpers: a scripted stand-in for the model (never used as a result)."""
from __future__ import annotations

import copy
import json

from miniagent.model import ModelReply


def tool_call(call_id: str, name: str, **arguments) -> dict:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def answer(text: str) -> dict:
    return {"role": "assistant", "content": text}


class ScriptedModel:
    """Replies with the given assistant messages in order and remembers what it was sent."""

    def __init__(self, turns):
        self.turns = list(turns)
        self.requests: list[list[dict]] = []

    def complete(self, messages, tools=None, **params):
        self.requests.append(copy.deepcopy(messages))
        body = {"messages": messages, "tools": tools}
        return ModelReply(self.turns.pop(0), body, {"usage": {"prompt_tokens": 0}})
