"""A3·2's numbers, computed from the A3-2 recording: per session, what its approval policy cost.

    summary(rec)        one row per session: requests, questions put to the human, calls refused,
                        prompt tokens summed, tokens recomputed summed (llama.cpp rule, = measured)
    after_refusal(rec)  the request that follows a refused call: what it read, what it added

Every number is the recording's own (prompt_tokens, cached_tokens) or the calculator's prediction,
which the recording proves equal to the measurement on every request.
"""
from __future__ import annotations

from dataclasses import dataclass

from prefixlab.cache import calculator



@dataclass(frozen=True)
class SessionCost:
    session: str
    policy: str
    requests: int         # model calls (each a full request to the server)
    asked: int            # questions put to the human (the harness asked, or the model asked in the chat)
    refused: int          # tool calls that did not run
    prompt_tokens: int    # summed over the requests
    recomputed: int       # summed: prompt - cached, as measured (the calculator predicts each exactly)


def refused_results(messages: list[dict]) -> list[dict]:
    """The tool results in ``messages`` that say the call did not run."""
    return [m for m in messages if m.get("role") == "tool" and m["content"].endswith("it did not run")]


def summary(rec) -> list[SessionCost]:
    rows = calculator.analyze(rec)
    out = []
    for info in rec.manifest["sessions"]:
        sid = info["id"]
        mine = [r for r in rows if r.session == sid]
        calls = rec.session_calls(sid)
        last = calls[-1].request["messages"]
        asked = len(info["asked"]) + info.get("asked_in_chat", 0)
        out.append(SessionCost(sid, info["policy"] + (" (在对话里问)" if info.get("asked_in_chat") else ""),
                               len(mine), asked, len(refused_results(last)),
                               sum(r.prompt_tokens for r in mine), sum(r.prompt_tokens - r.measured for r in mine)))
    return out


@dataclass(frozen=True)
class AfterRefusal:
    session: str
    round: int
    previous_prompt: int   # the request before the refused call
    prompt: int            # the request that carries the refusal
    read: int              # measured cached_tokens of that request
    refusal_text: str


def after_refusal(rec, session: str) -> AfterRefusal:
    """The first request of ``session`` whose last message is a refusal, next to the request before it."""
    calls = rec.session_calls(session)
    for before, call in zip(calls, calls[1:]):
        last = call.request["messages"][-1]
        if refused_results([last]):
            return AfterRefusal(session, call.round, before.prompt_tokens, call.prompt_tokens, call.cached_tokens,
                                last["content"])
    raise ValueError(f"{session}: no request carries a refused call")
