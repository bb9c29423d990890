"""A5·1's figure: the size of every request of one task under each trigger, against the window."""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.recording.format import Recording

TRIGGER_LABELS = {"never": "从不压缩", "every-n": "每 N 条消息压一次", "reserve": "窗口减预留"}


@dataclass(frozen=True)
class Request:
    """One request of a session: the n-th it sent, what it was, its size and what the server read."""
    n: int
    kind: str  # "agent" (a model call of the loop), "summary" (the summary call of a compaction), "refused"
    round: int
    prompt_tokens: int
    cached_tokens: int | None


def requests(recording: Recording, session: str) -> list[Request]:
    out = []
    for n, call in enumerate(recording.session_calls(session), 1):
        kind = "refused" if call.refused else ("summary" if call.kind == "compaction" else "agent")
        out.append(Request(n, kind, call.round, call.prompt_tokens, call.cached_tokens))
    return out


def compactions(recording: Recording, session: str) -> int:
    return sum(r.kind == "summary" for r in requests(recording, session))


def context_figure(recording: Recording) -> go.Figure:
    """Prompt tokens of every request, one line per trigger; summary calls and the refusal marked."""
    info = {s["id"]: s for s in recording.manifest["sessions"]}
    window, budget = info["reserve"]["window"], info["reserve"]["budget"]
    fig = go.Figure()
    for session, label in TRIGGER_LABELS.items():
        rows = requests(recording, session)
        agent = [r for r in rows if r.kind != "summary"]
        fig.add_scatter(x=[r.n for r in agent], y=[r.prompt_tokens for r in agent], mode="lines+markers",
                        name=label, legendgroup=session, line=dict(width=2),
                        marker=dict(symbol=["x" if r.kind == "refused" else "circle" for r in agent],
                                    size=[14 if r.kind == "refused" else 7 for r in agent]),
                        customdata=[[r.round, "被服务器拒收" if r.kind == "refused" else "agent 的请求"] for r in agent],
                        hovertemplate=f"{label}<br>第 %{{x}} 个请求(第 %{{customdata[0]}} 轮)<br>"
                                      "%{customdata[1]}:%{y:,} 个 token<extra></extra>")
        summaries = [r for r in rows if r.kind == "summary"]
        if summaries:
            fig.add_scatter(x=[r.n for r in summaries], y=[r.prompt_tokens for r in summaries], mode="markers",
                            name=f"{label}:摘要请求", legendgroup=session,
                            marker=dict(symbol="diamond-open", size=12, line=dict(width=2)),
                            hovertemplate=f"{label}<br>第 %{{x}} 个请求:摘要请求<br>%{{y:,}} 个 token<extra></extra>")
    for y, text, dash in [(window, f"窗口 {window:,}", "solid"), (budget, f"阈值 = 窗口 − 预留 = {budget:,}", "dot")]:
        fig.add_hline(y=y, line=dict(color="gray", dash=dash, width=1), annotation_text=text,
                      annotation_position="top left")
    fig.update_layout(height=460, margin=dict(t=40, b=110),
                      xaxis=dict(title="会话里的第几个请求(含摘要请求)", dtick=1),
                      yaxis=dict(title="请求的 token 数(prompt_tokens)", rangemode="tozero"),
                      legend=dict(orientation="h", y=-0.25, x=0))
    return fig
