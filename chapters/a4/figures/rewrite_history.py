"""A4·3's figures and tables: one session sent as an append-only message list or re-rendered each round.

Every number is computed here from the recording (``data/recordings/a4-3-...``) with the calculator;
the token census counts the tokens of one recorded request with the course tokenizer, on the prompt
exactly as the server rendered it. The figures are plotly (buttons switch precomputed traces), so
they work without a kernel.
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.cache import calculator
from prefixlab.cache.attribution import Attribution
from prefixlab.recording.format import Recording

SHAPES = ("messages", "transcript", "transcript-notes")
SHAPE_LABELS = {"messages": "追加的消息列表(miniagent)", "transcript": "每轮重新渲染(旧条目截短)",
                "transcript-notes": "每轮重新渲染 + 开头的笔记块"}
COLORS = {"messages": "#2ca02c", "transcript": "#ff7f0e", "transcript-notes": "#d62728"}
TRAILER = "\n\nCurrent request:\n"
NOTES_HEAD, TRANSCRIPT_HEAD = "Notes:\n", "Transcript:\n"


@dataclass(frozen=True)
class RoundRow:
    """One request: its shape and round, size, what the server read, what the rule predicts, where it broke."""

    shape: str
    round: int
    prompt_tokens: int
    measured: int
    read: int               # the llama.cpp rule's prediction
    where: str              # where the prefix broke, in words ("—": the previous request was read whole)

    @property
    def recomputed(self) -> int:
        return self.prompt_tokens - self.measured


def where_rewritten(before: str, after: str) -> str:
    """Where a re-rendered user message first differs from the previous round's, in words: the notes,
    the end of the old transcript (where the new entry goes in: nothing old was rewritten), or entry k
    of the old transcript (1 = the task), which this round rewrote."""
    d = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
    transcript_at = before.find(TRANSCRIPT_HEAD)
    if before.startswith(NOTES_HEAD) and d < transcript_at:
        return "笔记块"
    body_at = transcript_at + len(TRANSCRIPT_HEAD)
    body = before[body_at:before.rfind(TRAILER)]
    at = d - body_at
    if at >= len(body):
        return "记录末尾"
    starts = [0] + [i + 1 for i, ch in enumerate(body) if ch == "\n" and body.startswith("[", i + 1)]
    return f"记录里的第 {sum(1 for s in starts if s <= at)} 条"


def round_rows(recording: Recording) -> list[RoundRow]:
    """Every request under the llama.cpp rule, in the order sent. ``where``: "—" when the previous request
    was read whole; for a re-rendered transcript, the part of the user message this round changed;
    otherwise the block the break falls in."""
    rows = {r.seq: r for r in calculator.analyze(recording)}
    shape_of = {s["id"]: s["shape"] for s in recording.manifest["sessions"]}
    out, previous = [], {}
    for call in recording.calls:
        r = rows[call.seq]
        before = previous.get(call.session)
        if before is None:
            where = "开头(缓存是空的)"
        elif r.measured == before.prompt_tokens:
            where = "—"
        elif shape_of[call.session] != "messages":
            where = where_rewritten(before.request["messages"][-1]["content"], call.request["messages"][-1]["content"])
        else:
            where = r.break_block or "—"
        out.append(RoundRow(shape_of[call.session], call.round, r.prompt_tokens, r.measured, r.read, where))
        previous[call.session] = call
    return out


def of(rows: list[RoundRow], shape: str) -> list[RoundRow]:
    return [r for r in rows if r.shape == shape]


def rounds_figure(rows: list[RoundRow]) -> go.Figure:
    """Recomputed (or read back) per round, one line per shape: measured dots, the rule's prediction as a line."""
    fig = go.Figure()
    views = ("recomputed", "measured")
    for shape in SHAPES:
        mine = of(rows, shape)
        x = [r.round for r in mine]
        hover = [f"第 {r.round} 轮<br>prompt {r.prompt_tokens:,},读取 {r.measured:,}<br>打断处:{r.where}" for r in mine]
        for view in views:
            measured = [r.recomputed if view == "recomputed" else r.measured for r in mine]
            predicted = [r.prompt_tokens - r.read if view == "recomputed" else r.read for r in mine]
            visible = view == "recomputed"
            fig.add_scatter(x=x, y=predicted, mode="lines", name=f"{SHAPE_LABELS[shape]}(推算)", showlegend=False,
                            line=dict(color=COLORS[shape], width=2), visible=visible, legendgroup=shape,
                            hoverinfo="skip")
            fig.add_scatter(x=x, y=measured, mode="markers", name=SHAPE_LABELS[shape], legendgroup=shape,
                            marker=dict(color=COLORS[shape], size=10, symbol="circle-open", line=dict(width=2)),
                            visible=visible, text=hover,
                            hovertemplate="%{text}<extra>" + SHAPE_LABELS[shape] + "</extra>")

    def show(view: str) -> list[bool]:
        return [v == view for _ in SHAPES for v in views for _ in range(2)]

    top = max(r.prompt_tokens for r in rows)
    buttons = [dict(label="每轮重算多少", method="update",
                    args=[{"visible": show("recomputed")}, {"yaxis.title.text": "重算的 token(实测)"}]),
               dict(label="每轮读取多少", method="update",
                    args=[{"visible": show("measured")}, {"yaxis.title.text": "从缓存读取的 token(实测)"}])]
    fig.update_layout(
        height=440, margin=dict(t=60, b=90, l=10, r=10),
        xaxis=dict(title="第几轮", dtick=1), yaxis=dict(title="重算的 token(实测)", range=[0, top * 1.05]),
        legend=dict(orientation="h", y=-0.22, x=0),
        updatemenus=[dict(type="buttons", direction="right", x=0, y=1.14, xanchor="left", buttons=buttons)])
    return fig


# -- the census of one request -------------------------------------------------------------------

CENSUS_PARTS = ("base", "agents_md", "memory", "tools", "history", "tool_results", "template")
CENSUS_LABELS = {"base": "基础 prompt", "agents_md": "AGENTS.md", "memory": "记忆块", "tools": "工具定义",
                 "history": "对话(任务和助手的话)", "tool_results": "工具结果", "template": "模板标记"}
CENSUS_COLORS = {"base": "#1f77b4", "agents_md": "#9467bd", "memory": "#8c564b", "tools": "#17becf",
                 "history": "#bcbd22", "tool_results": "#ff7f0e", "template": "#7f7f7f"}


def census(att: Attribution, messages: list[dict]) -> dict[str, int]:
    """The tokens of one rendered request by component; they add up to its prompt length.

    A tool message's own text counts as a tool result; the assistant's words and tool calls and the
    user's task count as the conversation; the template's turn markers and tags as template.
    """
    out = dict.fromkeys(CENSUS_PARTS, 0)
    for block in att.blocks:
        if block.kind == "template":
            part = "template"
        elif block.kind == "tools":
            part = "tools"
        elif block.name in ("memory_header", "memory_body"):
            part = "memory"
        elif block.kind == "system":
            part = "agents_md" if block.name == "agents_md" else "base"
        elif block.message is not None and messages[block.message].get("role") == "tool":
            part = "tool_results"
        else:
            part = "history"
        out[part] += len(block)
    return out


def census_of_call(recording: Recording, session: str, round_no: int | None = None) -> dict[str, int]:
    """The census of one recorded request (default: the session's last)."""
    replay = calculator.prepare(recording)
    calls = recording.session_calls(session)
    call = calls[-1] if round_no is None else next(c for c in calls if c.round == round_no)
    return census(replay.attributions[call.seq], call.request["messages"])


def census_figure(counts: dict[str, dict[str, int]]) -> go.Figure:
    """One horizontal stacked bar per request (label -> census): how many tokens each component takes."""
    fig = go.Figure()
    labels = list(counts)
    for part in CENSUS_PARTS:
        values = [counts[label][part] for label in labels]
        totals = [sum(counts[label].values()) for label in labels]
        text = [f"{v / t:.0%}" if v / t >= 0.06 else "" for v, t in zip(values, totals)]
        fig.add_bar(y=labels, x=values, orientation="h", name=CENSUS_LABELS[part], marker_color=CENSUS_COLORS[part],
                    text=text, textposition="inside", insidetextanchor="middle",
                    customdata=[f"{v / t:.1%}" for v, t in zip(values, totals)],
                    hovertemplate=f"{CENSUS_LABELS[part]}:%{{x:,}} token(%{{customdata}})<extra></extra>")
    fig.update_layout(barmode="stack", height=150 + 70 * len(labels), margin=dict(t=30, b=80, l=10, r=10),
                      xaxis_title="token(课程分词器按服务器渲染出的 prompt 逐个数)",
                      yaxis=dict(autorange="reversed"), legend=dict(orientation="h", y=-0.35, x=0, traceorder="normal"))
    return fig
