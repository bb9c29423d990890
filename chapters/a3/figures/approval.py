"""A3·2's figure: request by request, what a session read from the cache and what it recomputed.

A dropdown picks the session; each bar is one request (stacked: read, recomputed), its hover says
what the request added at its end (the task, a tool result, a refusal, the user's "yes").
Values: the recording's measured ``cached_tokens``, which the calculator predicts exactly.
"""
from __future__ import annotations

import plotly.graph_objects as go


def added_at_end(messages: list[dict]) -> str:
    """What a request carries after the previous one: its last message, in a few words."""
    last = messages[-1]
    if last["role"] == "user":
        return f"用户:{last['content'][:40]}"
    if last["role"] == "tool":
        text = last["content"]
        return ("拒绝:" if text.endswith("it did not run") else "工具结果:") + text.splitlines()[0][:50]
    return last["role"]


def request_figure(rec, sessions: list[str]) -> go.Figure:
    fig = go.Figure()
    for i, sid in enumerate(sessions):
        calls = rec.session_calls(sid)
        x = [f"请求 {n}" for n in range(1, len(calls) + 1)]
        hover = [added_at_end(c.request["messages"]) for c in calls]
        visible = i == 0
        fig.add_trace(go.Bar(x=x, y=[c.cached_tokens for c in calls], name="从缓存读取", marker_color="#2563eb",
                             visible=visible, customdata=hover,
                             hovertemplate="%{x}:读取 %{y}<br>末尾新加:%{customdata}<extra></extra>"))
        fig.add_trace(go.Bar(x=x, y=[c.prompt_tokens - c.cached_tokens for c in calls], name="重算",
                             marker_color="#f59e0b", visible=visible, customdata=hover,
                             hovertemplate="%{x}:重算 %{y}<br>末尾新加:%{customdata}<extra></extra>"))
    buttons = []
    for i, sid in enumerate(sessions):
        visible = [False] * (2 * len(sessions))
        visible[2 * i] = visible[2 * i + 1] = True
        buttons.append(dict(label=sid, method="update", args=[{"visible": visible}]))
    fig.update_layout(barmode="stack", height=380, margin=dict(t=60, l=50, r=20, b=40),
                      yaxis_title="token", legend=dict(orientation="h", y=1.12, x=1, xanchor="right"),
                      updatemenus=[dict(buttons=buttons, x=0, xanchor="left", y=1.2, yanchor="top")])
    return fig
