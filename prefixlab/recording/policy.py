"""A scripted policy: real requests to a real server, assistant turns from a script.

SmolLM2-135M cannot drive a coding task, so for the controlled runs the
*choices* come from an experiment's script (a YAML file of assistant turns). Every request still
goes to the real server and its answer (usage, cached tokens, timings) is recorded; only the
assistant message appended to the history is the script's. The variants of an experiment share
one script, so they differ only in what the experiment varies.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import yaml

from miniagent.model import ChatModel, ModelReply


def load_script(path: Path) -> dict:
    """An experiment's script: its scripted assistant turns and settings (YAML)."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def load_tasks(path: Path) -> dict:
    """An experiment's task texts (YAML): the user messages its sessions start with."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def scripted_message(turn: dict, call_id: str) -> dict:
    """The assistant message for one script turn, in OpenAI chat format."""
    if "answer" in turn:
        return {"role": "assistant", "content": turn["answer"]}
    arguments = json.dumps(turn["args"], ensure_ascii=False)
    return {"role": "assistant", "content": turn.get("say", ""),
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": turn["tool"], "arguments": arguments}}]}


class ScriptedPolicy:
    """Looks like a model to miniagent's loop; sends each request, answers from the script."""

    def __init__(self, model: ChatModel, turns: list[dict], call_prefix: str, clock, **params):
        self.model, self.turns, self.call_prefix, self.clock = model, list(turns), call_prefix, clock
        # One generated token is enough: we need the server's prompt accounting, not its text.
        self.params = {"max_tokens": 1, "temperature": 0, **params}
        self.sent_at: list[float] = []

    def complete(self, messages, tools=None, **params) -> ModelReply:
        if not self.turns:
            raise RuntimeError("the script has no turn left for this request")
        self.sent_at.append(self.clock())
        reply = self.model.complete(messages, tools, **{**self.params, **params})
        number = len(self.sent_at)
        return ModelReply(scripted_message(self.turns.pop(0), f"{self.call_prefix}_{number}"),
                          reply.request, reply.response)


def monotonic_clock():
    start = time.monotonic()
    return lambda: round(time.monotonic() - start, 3)


class StampedPolicy(ScriptedPolicy):
    """The scripted policy, its send times also noted in ``order``: one list with its session's other
    requests (a compaction's summary call, ``StampedModel``), so the manifest keeps them in sending order.

    ``after_call`` maps a request number (1, 2, ...) to an action run right after that request's
    reply, before the loop goes on: a person's edit between two rounds (of AGENTS.md, say).
    """

    def __init__(self, *args, order: list[float], after_call: dict | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.order, self.after_call = order, after_call or {}

    def complete(self, messages, tools=None, **params):
        reply = super().complete(messages, tools, **params)
        self.order.append(self.sent_at[-1])
        if action := self.after_call.get(len(self.sent_at)):
            action()
        return reply


class StampedModel:
    """The served model itself (writing a summary, say); its send time goes into the same ``order``."""

    def __init__(self, model, order: list[float], clock, **params):
        self.model, self.order, self.clock, self.params = model, order, clock, params

    def complete(self, messages, tools=None, **params):
        self.order.append(self.clock())
        return self.model.complete(messages, tools, **{**self.params, **params})

