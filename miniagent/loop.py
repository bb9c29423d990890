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

from .session import Session, tokens_spent, usage_problem

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
    every call the task caused: the loop's own, a step's own call, a child's (its ``child``
    entry), and ``tokens_before`` (what the same task spent in earlier runs: a retry goes on
    counting, call_retry.py). A call whose usage cannot be counted stops a run that has a budget.
    ``clock`` says what time it is, in seconds; a test hands in its own, so the
    time limit is tested without waiting.
    """

    max_rounds: int = 20
    max_tokens: int | None = None
    max_seconds: float | None = None
    clock: Callable[[], float] = time.monotonic
    tokens_before: int = 0

    def __post_init__(self):
        if isinstance(self.tokens_before, bool) or not isinstance(self.tokens_before, int) or self.tokens_before < 0:
            raise ValueError(f"tokens_before must be a whole number, 0 or more, not {self.tokens_before!r}")
        for name in ("max_rounds", "max_tokens", "max_seconds"):
            value = getattr(self, name)
            if value is None and name != "max_rounds":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value <= 0 or (name != "max_seconds" and not isinstance(value, int)):
                kind = "a positive number" if name == "max_seconds" else "a positive whole number"
                raise ValueError(f"{name} must be {kind}, not {value!r}")

    def reason_to_stop(self, rounds: int, tokens: int | None, seconds: float) -> str | None:
        """Why the next call must not be made, or None. ``tokens``: None if they cannot be counted."""
        if rounds >= self.max_rounds:
            return f"no final answer after {rounds} rounds"
        if reason := self.over_budget(tokens):
            return reason
        if self.max_seconds is not None and seconds >= self.max_seconds:
            return f"time limit reached: {seconds:.1f} s used, the limit is {self.max_seconds:g} s"
        return None

    def over_budget(self, tokens: int | None) -> str | None:
        """Why the budget forbids the next call (spent, or it cannot be counted), or None."""
        if self.max_tokens is None:
            return None
        if tokens is None:
            return (f"the token budget ({self.max_tokens}) cannot be counted: the server did not report "
                    "the usage of a call as whole numbers of tokens")
        if tokens + self.tokens_before >= self.max_tokens:
            return f"token budget spent: {tokens + self.tokens_before} tokens used, the budget is {self.max_tokens}"
        return None


def run_task(task: str, *, model: Model, toolbox: Tools, session: Session, steps: Sequence[Step] = (),
             max_rounds: int = 20, limits: Limits | None = None, log: Log = lambda line: None) -> str:
    """Work on ``task`` until the model answers without tool calls; return that answer ("" if a limit stopped it)."""
    limits = limits or Limits(max_rounds)
    for step in steps:
        task = step.start(session, task)
    session.append("message", message={"role": "user", "content": task})
    started, first = limits.clock(), len(session.entries)  # every entry from here on is this run's
    for round_no in itertools.count(1):
        tokens = tokens_spent(session.entries[first:])
        if reason := limits.reason_to_stop(round_no - 1, tokens, limits.clock() - started):
            return stop(session, reason, round_no - 1, tokens, log)
        for step in steps:
            step.before_call(session, round_no, log)
        if reason := limits.over_budget(tokens := tokens_spent(session.entries[first:])):  # a step's call
            return stop(session, reason, round_no - 1, tokens, log)
        reply = ask(model, session, toolbox.definitions, round_no)
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


def ask(model: Model, session: Session, tools: list[dict], round_no: int):
    """One model call, kept in the session before anything else can go wrong: a reply the model
    client refuses (``answered`` on its error) is written down too, then the error goes on."""
    try:
        reply = model.complete(session.messages(), tools)
    except Exception as err:
        if answered := getattr(err, "answered", None):
            session.append("model_call", round=round_no, **answered)
        raise
    session.append("model_call", round=round_no, request=reply.request, response=reply.response)
    return reply


def stop(session: Session, reason: str, rounds: int, tokens: int | None, log: Log) -> str:
    session.append("stopped", reason=reason, rounds=rounds, tokens=tokens)
    log(f"stopped: {reason}")
    return ""


def describe_usage(response: dict) -> str:
    if problem := usage_problem(response):
        return f"usage not counted ({problem})"
    usage = response["usage"]
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    cached_text = "not reported" if cached is None else str(cached)
    return f"prompt {usage['prompt_tokens']} tokens, cached {cached_text}"


def short(text: str, width: int = 70) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"
