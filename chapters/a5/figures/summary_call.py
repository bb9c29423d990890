"""A5·4's figure: what the server read for each summary call, sent without tools or as the agent's prefix.

Two recordings of the same task and trigger (window less a reserve): A5·1's ``reserve`` session,
whose summary calls go out as miniagent ships them (no tools offered), and A5·4's ``same-prefix``
session, whose summary calls offer the agent's tools. Up to the first summary call the requests of
both are the same (``same_requests_before_summary``).
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.cache import calculator
from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import Recording, load

# variant -> (label, recording, session)
VARIANTS = {
    "separate": ("不带工具,单独发", "a5-1-triggers-smollm2-llamacpp", "reserve"),
    "same-prefix": ("带上工具,沿用前缀", "a5-4-summary-call-smollm2-llamacpp", "same-prefix"),
}


def recordings() -> dict[str, Recording]:
    return {v: load(RECORDINGS / name) for v, (_, name, _) in VARIANTS.items()}


@dataclass(frozen=True)
class SummaryCall:
    variant: str
    n: int                 # the n-th compaction of the session
    prompt_tokens: int
    cached_tokens: int
    predicted: int         # the calculator's read under the llama.cpp rule
    break_block: str | None
    completion_tokens: int


def summary_calls(recs: dict[str, Recording]) -> list[SummaryCall]:
    out = []
    for variant, rec in recs.items():
        session = VARIANTS[variant][2]
        rows = {r.seq: r for r in calculator.analyze(rec, sessions=session)}
        n = 0
        for call in rec.session_calls(session):
            if call.kind != "compaction":
                continue
            n += 1
            row = rows[call.seq]
            out.append(SummaryCall(variant, n, call.prompt_tokens, call.cached_tokens, row.read, row.break_block,
                                   call.response["usage"]["completion_tokens"]))
    return out


def first_after(rec: Recording, session: str):
    """The first model call after the session's first compaction."""
    calls = rec.session_calls(session)
    i = next(i for i, c in enumerate(calls) if c.kind == "compaction")
    return next(c for c in calls[i + 1:] if c.kind == "model_call")


def same_requests_before_summary(recs: dict[str, Recording]) -> int:
    """How many requests before the first summary call both recordings share, with the same size and
    the same read (raises if they differ: the comparison would not be fair). The messages differ
    only in the tool-call ids, which carry the session's name."""
    before = {}
    for variant, rec in recs.items():
        calls = rec.session_calls(VARIANTS[variant][2])
        first = next(i for i, c in enumerate(calls) if c.kind == "compaction")
        before[variant] = [(c.prompt_tokens, c.cached_tokens, len(c.request["messages"])) for c in calls[:first]]
    a, b = before.values()
    if a != b:
        raise AssertionError("the two recordings differ before their first summary call")
    return len(a)


def summary_figure(calls: list[SummaryCall]) -> go.Figure:
    """Read and recomputed tokens of every summary call, per variant."""
    xs = [f"{VARIANTS[c.variant][0]}<br>第 {c.n} 次压缩" for c in calls]
    fig = go.Figure()
    fig.add_bar(x=xs, y=[c.cached_tokens for c in calls], name="从缓存读取", marker_color="#4c9f70",
                hovertemplate="%{x}<br>读取 %{y:,} 个 token<extra></extra>")
    fig.add_bar(x=xs, y=[c.prompt_tokens - c.cached_tokens for c in calls], name="重算", marker_color="#d1495b",
                hovertemplate="%{x}<br>重算 %{y:,} 个 token<extra></extra>")
    fig.update_layout(barmode="stack", height=420, margin=dict(t=30, b=90),
                      yaxis=dict(title="摘要请求的 token"), legend=dict(orientation="h", y=-0.25, x=0))
    return fig
