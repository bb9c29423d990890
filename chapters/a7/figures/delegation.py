"""A7·1 and A7·2's numbers and figures: a parent agent and its child, request by request.

Everything is computed from the recordings (``a7-1-explore-*``, ``a7-2-child-*``): the measured
``prompt_tokens`` / ``cached_tokens`` the server returned, and the calculator's prediction of every
``cached_tokens`` (``prefixlab.cache.calculator``, the llama.cpp rule configured from the recording).
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from prefixlab.cache import calculator
from prefixlab.recording.format import Recording

SETUP_LABELS = {"one-slot": "一个槽位,没有主机缓存", "host-cache": "一个槽位,有主机缓存", "two-slots": "两个槽位"}
MODE_LABELS = {"fresh": "全新的子 agent", "fork": "分叉的子 agent"}
ROLE_LABELS = {"alone": "自己读", "parent": "父 agent", "child": "子 agent"}
COLORS = {"alone": "#7f7f7f", "parent": "#1f77b4", "child": "#ff7f0e"}


@dataclass(frozen=True)
class Request:
    """One request as the server received it, with what the calculator predicted."""
    order: int          # 1, 2, ... in the order the server received the requests of this variant
    session: str
    role: str           # alone | parent | child
    kind: str           # agent | summary
    round: int
    prompt_tokens: int
    measured: int       # cached_tokens the server reported
    predicted: int      # cached_tokens the calculator predicts
    notes: tuple[str, ...]


def role_of(recording: Recording, session: str) -> str:
    info = recording.session_info(session)
    if info["kind"] == "child":
        return "child"
    return "alone" if info.get("variant") == "alone" else "parent"


def requests(recording: Recording, variant: str) -> list[Request]:
    """The requests of one variant (a parent session and its children), in the order the server got them."""
    sessions = {s["id"] for s in recording.manifest["sessions"] if s.get("variant") == variant}
    rows = {r.seq: r for r in calculator.analyze(recording, sessions=sorted(sessions))}
    out = []
    for call in recording.calls:
        if call.session not in sessions:
            continue
        row = rows[call.seq]
        out.append(Request(len(out) + 1, call.session, role_of(recording, call.session),
                           "summary" if call.kind == "compaction" else "agent", call.round, call.prompt_tokens,
                           call.cached_tokens, row.read, tuple(row.prediction.notes) if row.prediction is not None else ()))
    return out


def totals(rows: list[Request], roles=("alone", "parent", "child")) -> dict:
    """Requests, prompt tokens, recomputed tokens (prompt - cached) and the longest request of ``roles``."""
    picked = [r for r in rows if r.role in roles]
    return {"requests": len(picked), "prompt": sum(r.prompt_tokens for r in picked),
            "recomputed": sum(r.prompt_tokens - r.measured for r in picked),
            "peak": max((r.prompt_tokens for r in picked), default=0),
            "summaries": sum(r.kind == "summary" for r in picked)}


def agree(rows: list[Request]) -> int:
    return sum(r.predicted == r.measured for r in rows)


def context_figure(recording: Recording) -> go.Figure:
    """A7·1: the size of every request, alone vs parent + child, against the compaction budget."""
    budget = recording.manifest["compaction"]["budget"]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=("自己读 30 个文件", "交给一个全新的子 agent"))
    for col, variant in ((1, "alone"), (2, "delegate")):
        rows = requests(recording, variant)
        for role in ("alone", "parent", "child"):
            mine = [r for r in rows if r.role == role]
            if not mine:
                continue
            fig.add_scatter(x=[r.order for r in mine], y=[r.prompt_tokens for r in mine], mode="markers",
                            name=ROLE_LABELS[role], legendgroup=role, showlegend=col == 2 or role == "alone",
                            marker=dict(color=COLORS[role], size=[10 if r.kind == "summary" else 6 for r in mine],
                                        symbol=["diamond" if r.kind == "summary" else "circle" for r in mine]),
                            customdata=[[r.round, "写摘要的请求" if r.kind == "summary" else "agent 的请求", r.measured]
                                        for r in mine],
                            hovertemplate=f"{ROLE_LABELS[role]}<br>第 %{{x}} 个请求(第 %{{customdata[0]}} 轮)<br>"
                                          "%{customdata[1]}:%{y:,} 个 token,读取 %{customdata[2]:,}<extra></extra>",
                            row=1, col=col)
        # Label the line once: annotation_text=None would still add an empty annotation ("new text").
        label = {"annotation_text": "压缩阈值"} if col == 1 else {}
        fig.add_hline(y=budget, line=dict(dash="dot", color="#d62728"), row=1, col=col, **label)
    fig.update_xaxes(title_text="服务器收到的第几个请求")
    fig.update_yaxes(title_text="prompt_tokens", row=1, col=1)
    fig.update_layout(height=380, margin=dict(l=50, r=10, t=40, b=40), legend=dict(orientation="h", y=-0.25))
    return fig


@dataclass(frozen=True)
class ChildEffect:
    """A7·2, one setup and one mode: the child's first request, and the parent's first request after the child."""
    setup: str
    mode: str
    child_first: Request
    parent_back: Request      # the parent's first request after its child answered
    parent_before: Request    # the parent's request right before the child started
    rows: tuple[Request, ...]


def child_effect(recording: Recording, mode: str) -> ChildEffect:
    rows = requests(recording, mode)
    first_child = next(i for i, r in enumerate(rows) if r.role == "child")
    back = next(r for r in rows[first_child:] if r.role == "parent")
    return ChildEffect(recording.manifest["setup"], mode, rows[first_child], back, rows[first_child - 1], tuple(rows))


def effect_figure(effects: list[ChildEffect]) -> go.Figure:
    """A7·2: per setup, fresh vs fork: what the child's first request reads, what the parent reads when it is back."""
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.05,
                        subplot_titles=("子 agent 的第一个请求", "子 agent 答完后父 agent 的第一个请求"))
    for mode, color in (("fresh", "#2ca02c"), ("fork", "#9467bd")):
        mine = [e for e in effects if e.mode == mode]
        for col, pick in ((1, lambda e: e.child_first), (2, lambda e: e.parent_back)):
            x = [SETUP_LABELS[e.setup] for e in mine]
            reqs = [pick(e) for e in mine]
            fig.add_bar(x=x, y=[r.prompt_tokens for r in reqs], name=f"{MODE_LABELS[mode]}:prompt",
                        legendgroup=f"{mode}-p", showlegend=col == 1, offsetgroup=mode,
                        marker=dict(color="rgba(0,0,0,0)", line=dict(color=color, width=2)),
                        hovertemplate="%{x}<br>prompt %{y:,} 个 token<extra></extra>", row=1, col=col)
            fig.add_bar(x=x, y=[r.measured for r in reqs], name=f"{MODE_LABELS[mode]}:读取(实测)",
                        legendgroup=f"{mode}-c", showlegend=col == 1, offsetgroup=mode, base=0,
                        marker=dict(color=color),
                        customdata=[[r.predicted, "; ".join(r.notes) or "-"] for r in reqs],
                        hovertemplate="%{x}<br>读取 %{y:,}(计算器推算 %{customdata[0]:,})<br>%{customdata[1]}"
                                      "<extra></extra>", row=1, col=col)
    fig.update_layout(barmode="group", height=400, margin=dict(l=50, r=10, t=40, b=40),
                      legend=dict(orientation="h", y=-0.3))
    fig.update_yaxes(title_text="token", row=1, col=1)
    return fig
