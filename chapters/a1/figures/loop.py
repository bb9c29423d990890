"""What chapter A1's lessons draw from the recording ``a1-loop-smollm2-llamacpp``.

``round_rows``      one row per request of a session: the round, what the model asked for, the
                    prompt's size, what the server read from its cache (measured and predicted)
                    and what it evaluated (``timings.prompt_n``)
``tokens_figure``   per round: tokens read from the cache and tokens recomputed, stacked (plotly,
                    works in the built page without a kernel)
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.cache import calculator
from prefixlab.recording.format import Recording


@dataclass(frozen=True)
class RoundRow:
    round: int
    asked: str             # the tool call the assistant turn of this round made, or "回答" for the answer
    prompt_tokens: int
    cached: int | None     # the server's cached_tokens
    predicted: int         # what the calculator predicts the server reads (llama.cpp rule)
    evaluated: int | None  # timings.prompt_n: the prompt tokens the server evaluated
    messages: int          # chat messages in the request, the system message included


def describe_turn(message: dict) -> str:
    """A short label of an assistant turn: ``run_command(python tools/check.py)`` or ``回答``."""
    calls = message.get("tool_calls") or []
    if not calls:
        return "回答"
    call = calls[0]["function"]
    args = json.loads(call["arguments"] or "{}")
    first = next(iter(args.values()), "")
    first = first if len(first) <= 40 else first[:39] + "…"
    return f"{call['name']}({first})"


def assistant_turns(recording: Recording, session: str) -> dict[int, dict]:
    """Round -> the assistant message appended after that round's model call."""
    turns, current = {}, None
    for entry in recording.session_path(session):
        if entry["type"] == "model_call":
            current = entry["round"]
        elif entry["type"] == "message" and entry["message"]["role"] == "assistant" and current is not None:
            turns[current] = entry["message"]
    return turns


def round_rows(recording: Recording, session: str) -> list[RoundRow]:
    predicted = {r.seq: r.read for r in calculator.analyze(recording, sessions=session)}
    turns = assistant_turns(recording, session)
    rows = []
    for call in recording.session_calls(session):
        timings = call.timings or {}
        rows.append(RoundRow(call.round, describe_turn(turns[call.round]), call.prompt_tokens, call.cached_tokens,
                             predicted[call.seq], timings.get("prompt_n"), len(call.request["messages"])))
    return rows


def tokens_figure(rows: list[RoundRow], title: str) -> go.Figure:
    """Stacked bars per round: read from the cache (measured) and recomputed (prompt - cached)."""
    x = [r.round for r in rows]
    cached = [r.cached or 0 for r in rows]
    fresh = [r.prompt_tokens - c for r, c in zip(rows, cached)]
    fig = go.Figure()
    fig.add_bar(x=x, y=cached, name="从缓存读取(cached_tokens)", marker_color="#9ecae1",
                customdata=[r.asked for r in rows],
                hovertemplate="第 %{x} 轮<br>读取 %{y:,}<br>这一轮之后:%{customdata}<extra></extra>")
    fig.add_bar(x=x, y=fresh, name="重算(prompt − cached)", marker_color="#e6550d",
                customdata=[r.prompt_tokens for r in rows],
                hovertemplate="第 %{x} 轮<br>重算 %{y:,}<br>prompt 共 %{customdata:,}<extra></extra>")
    fig.update_layout(barmode="stack", height=420, title=title, margin=dict(t=60, b=90),
                      xaxis=dict(title="轮(第几次请求)", dtick=1), yaxis=dict(title="prompt 的 token 数"),
                      legend=dict(orientation="h", y=-0.25, x=0))
    return fig


class ServerClock:
    """A clock that moves only when a recorded call is answered, by the time the server reported for it
    (``timings.prompt_ms + timings.predicted_ms``): a wall-time limit tested without waiting, on real times."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _RecordedRun:
    """Model and toolbox in one: answers each call with the recorded response and assistant message of
    that round, and each tool call with the recorded tool result."""

    definitions: list[dict] = []

    def __init__(self, recording: Recording, session: str, clock: ServerClock):
        self.calls, self.clock = recording.session_calls(session), clock
        self.turns = assistant_turns(recording, session)
        self.results = [e["message"]["content"] for e in recording.session_path(session)
                        if e["type"] == "message" and e["message"]["role"] == "tool"]
        self.sent = 0

    def complete(self, messages, tools=None, **params):
        from miniagent.model import ModelReply

        if self.sent >= len(self.calls):
            raise RuntimeError("the recorded session has no more calls: the limit did not stop the run in time")
        call = self.calls[self.sent]
        self.sent += 1
        timings = call.timings or {}
        self.clock.now += (timings.get("prompt_ms", 0) + timings.get("predicted_ms", 0)) / 1000
        return ModelReply(self.turns[call.round], call.request, call.response)

    def call(self, name: str, arguments: str) -> str:
        return self.results[self.sent - 1]


def server_seconds(recording: Recording, session: str) -> list[float]:
    """The server's reported time (prompt + generation) of each call of ``session``, in seconds."""
    return [((c.timings or {}).get("prompt_ms", 0) + (c.timings or {}).get("predicted_ms", 0)) / 1000
            for c in recording.session_calls(session)]


def run_on_server_time(recording: Recording, session: str, max_seconds: float, workdir) -> dict:
    """Run miniagent's loop again over a recorded session, with ``Limits(max_seconds=...)`` on a clock that
    advances by the server's reported times; return the ``stopped`` entry it wrote."""
    from miniagent.loop import Limits, run_task
    from miniagent.session import Session

    clock = ServerClock()
    run = _RecordedRun(recording, session, clock)
    session_file = Session.open(workdir / f"{session}-timed.jsonl")
    run_task("(replayed)", model=run, toolbox=run, session=session_file,
             limits=Limits(max_rounds=1000, max_seconds=max_seconds, clock=clock))
    return session_file.entries[-1]
