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

A model that never stops answering with tool calls would run forever, so every run has
``Limits``: rounds, tokens spent, seconds. When one is reached the loop stops cleanly: a
``stopped`` entry in the session says why, and everything before it stays as it was.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

from .session import Session, tokens_used

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


@dataclass(frozen=True)
class Limits:
    """When to give up on a model that keeps calling tools. A limit left at None is off.

    ``max_tokens`` counts what the server reports in ``usage`` (prompt + completion), summed over
    the task's calls. ``clock`` says what time it is, in seconds; a test hands in its own, so the
    time limit is tested without waiting.
    """

    max_rounds: int = 20
    max_tokens: int | None = None
    max_seconds: float | None = None
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self):
        for name in ("max_rounds", "max_tokens", "max_seconds"):
            value = getattr(self, name)
            if value is None and name != "max_rounds":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value <= 0 or (name != "max_seconds" and not isinstance(value, int)):
                kind = "a positive number" if name == "max_seconds" else "a positive whole number"
                raise ValueError(f"{name} must be {kind}, not {value!r}")

    def reason_to_stop(self, rounds: int, tokens: int, seconds: float) -> str | None:
        """Why the next call must not be made, or None."""
        if rounds >= self.max_rounds:
            return f"no final answer after {rounds} rounds"
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return f"token budget spent: {tokens} tokens used, the budget is {self.max_tokens}"
        if self.max_seconds is not None and seconds >= self.max_seconds:
            return f"time limit reached: {seconds:.1f} s used, the limit is {self.max_seconds:g} s"
        return None


def run_task(task: str, *, model: Model, toolbox: Tools, session: Session, steps: Sequence[Step] = (),
             max_rounds: int = 20, limits: Limits | None = None, log: Log = lambda line: None) -> str:
    """Work on ``task`` until the model answers without tool calls; return that answer ("" if a limit stopped it)."""
    limits = limits or Limits(max_rounds)
    for step in steps:
        task = step.start(session, task)
    session.append("message", message={"role": "user", "content": task})
    started, tokens = limits.clock(), 0
    for round_no in itertools.count(1):
        if reason := limits.reason_to_stop(round_no - 1, tokens, limits.clock() - started):
            session.append("stopped", reason=reason, rounds=round_no - 1, tokens=tokens)
            log(f"stopped: {reason}")
            return ""
        for step in steps:
            step.before_call(session, round_no, log)
        reply = model.complete(session.messages(), toolbox.definitions)
        session.append("model_call", round=round_no, request=reply.request, response=reply.response)
        session.append("message", message=reply.message)
        tokens += tokens_used(reply.response)
        log(f"round {round_no}: {describe_usage(reply.response)}")
        calls = reply.message.get("tool_calls") or []
        if not calls:
            return reply.message["content"]
        for call in calls:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            result = toolbox.call(name, arguments)
            log(f"  {name}({short(arguments)}) -> {short(result)}")
            session.append("message", message={"role": "tool", "tool_call_id": call["id"], "content": result})


def describe_usage(response: dict) -> str:
    usage = response.get("usage") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    cached_text = "not reported" if cached is None else str(cached)
    return f"prompt {usage.get('prompt_tokens', '?')} tokens, cached {cached_text}"


def short(text: str, width: int = 70) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"
