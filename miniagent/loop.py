"""The agent loop: ask the model, run the tools it asks for, repeat.

This is the whole agent. The task enters the conversation as a user message; the model
answers; if the answer asks for tools, the loop runs them, appends their results and asks
again, sending the whole conversation each time; an answer without a tool call is the last.

What later chapters add sits at the edge, never in the loop: new things the model can do are
tools, and new things that must happen before a call are *steps* the caller hands in. Each
step may turn the task into the text of its user message (``start``) and may change what the
next request carries (``before_call``), in the order given. A plain agent's system prompt is
a step (system_message.py); so are compaction (compaction.py) and the memory designs
(injection.py).
"""
from __future__ import annotations

from typing import Callable, Protocol, Sequence

from .session import Session

Log = Callable[[str], None]


class Model(Protocol):
    def complete(self, messages: list[dict], tools: list[dict] | None = None, **params): ...


class Tools(Protocol):
    definitions: list[dict]  # the tools as the model is told about them

    def call(self, name: str, arguments: str) -> str: ...


class Step(Protocol):
    def start(self, session: Session, task: str) -> str:
        """Before the task enters the conversation: the text its user message will have."""

    def before_call(self, session: Session, round_no: int, log: Log) -> None:
        """Before every model call: bring what the request will carry up to date."""


def run_task(task: str, *, model: Model, toolbox: Tools, session: Session, steps: Sequence[Step] = (),
             max_rounds: int = 20, log: Log = lambda line: None) -> str:
    """Work on ``task`` until the model answers without tool calls; return that answer."""
    for step in steps:
        task = step.start(session, task)
    session.append("message", message={"role": "user", "content": task})
    for round_no in range(1, max_rounds + 1):
        for step in steps:
            step.before_call(session, round_no, log)
        reply = model.complete(session.messages(), toolbox.definitions)
        session.append("model_call", round=round_no, request=reply.request, response=reply.response)
        session.append("message", message=reply.message)
        log(f"round {round_no}: {describe_usage(reply.response)}")
        calls = reply.message.get("tool_calls") or []
        if not calls:
            return reply.message["content"]
        for call in calls:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            result = toolbox.call(name, arguments)
            log(f"  {name}({short(arguments)}) -> {short(result)}")
            session.append("message", message={"role": "tool", "tool_call_id": call["id"], "content": result})
    log(f"stopped: no final answer after {max_rounds} rounds")
    return ""


def describe_usage(response: dict) -> str:
    usage = response.get("usage") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    cached_text = "not reported" if cached is None else str(cached)
    return f"prompt {usage.get('prompt_tokens', '?')} tokens, cached {cached_text}"


def short(text: str, width: int = 70) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"
