"""A4·2's figure and tables: a block that changes on its own, at the top, at the end, or only the date.

Every number is computed here from the recording (``data/recordings/a4-2-...``); the figure is plotly
with its two views (read back / recomputed) switched by buttons, so it works without a kernel.
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.cache import calculator, pricing
from prefixlab.recording.format import Recording

SHAPES = ("clock-top", "clock-end", "date-only")
SHAPE_LABELS = {"clock-top": "时间+文件列表在顶部", "clock-end": "时间+文件列表在末尾", "date-only": "只留日期,放末尾"}
COLORS = {"clock-top": "#d62728", "clock-end": "#ff7f0e", "date-only": "#2ca02c"}
ANTHROPIC_MODEL = "claude-opus-5"   # automatic caching (one cache_control at the top level of the request)
OPENAI_MODEL = "gpt-5.5"            # a model before GPT-5.6: automatic longest-prefix caching
# (rule, the model whose list prices the cost uses, the rule's settings): Anthropic's rule needs the model
# (its minimum cacheable length); OpenAI's classic rule has one minimum for every model
RULE_MODELS = (("anthropic", ANTHROPIC_MODEL, {"model": ANTHROPIC_MODEL}), ("openai", OPENAI_MODEL, {}))


@dataclass(frozen=True)
class RoundRow:
    """One request: which shape, day and round; its size, what the server read and what the rule predicts."""

    shape: str
    day: int
    round: int
    at: str                 # the time the environment block showed (HH:MM)
    prompt_tokens: int
    measured: int
    read: int               # llama.cpp rule's prediction
    break_block: str | None

    @property
    def recomputed(self) -> int:
        return self.prompt_tokens - self.measured


def session_id(shape: str, day: int) -> str:
    return f"{shape}-day{day}"


def shown_time(call) -> str:
    """HH:MM of the environment block the request carried ("" for the date-only shape)."""
    system = call.request["messages"][0]["content"]
    for line in system.splitlines():
        if line.startswith("Time: "):
            return line.split()[2]
    return ""


def round_rows(recording: Recording) -> list[RoundRow]:
    """Every request of the recording under the llama.cpp rule, in the order sent."""
    rows = {r.seq: r for r in calculator.analyze(recording)}
    day_of = {s["id"]: s["day"] for s in recording.manifest["sessions"]}
    shape_of = {s["id"]: s["shape"] for s in recording.manifest["sessions"]}
    out = []
    for call in recording.calls:
        r = rows[call.seq]
        out.append(RoundRow(shape_of[call.session], day_of[call.session], call.round, shown_time(call),
                            r.prompt_tokens, r.measured, r.read, r.break_block))
    return out


def of(rows: list[RoundRow], shape: str, day: int | None = None) -> list[RoundRow]:
    return [r for r in rows if r.shape == shape and (day is None or r.day == day)]


def rounds_figure(rows: list[RoundRow], day: int = 1) -> go.Figure:
    """Read back (or recomputed) per round of one day, one line per shape: measured dots, predicted line."""
    fig = go.Figure()
    views = ("measured", "recomputed")
    for shape in SHAPES:
        mine = of(rows, shape, day)
        x = [r.round for r in mine]
        hover = [f"第 {r.round} 轮" + (f",块里的时间 {r.at}" if r.at else "") + f"<br>prompt {r.prompt_tokens:,}"
                 for r in mine]
        for view in views:
            y_measured = [r.measured if view == "measured" else r.recomputed for r in mine]
            y_predicted = [r.read if view == "measured" else r.prompt_tokens - r.read for r in mine]
            what = "读取" if view == "measured" else "重算"
            visible = view == "measured"
            fig.add_scatter(x=x, y=y_predicted, mode="lines", name=f"{SHAPE_LABELS[shape]}(推算)",
                            line=dict(color=COLORS[shape], width=2), visible=visible, legendgroup=shape,
                            showlegend=False, hoverinfo="skip")
            fig.add_scatter(x=x, y=y_measured, mode="markers", name=SHAPE_LABELS[shape], legendgroup=shape,
                            marker=dict(color=COLORS[shape], size=10, symbol="circle-open", line=dict(width=2)),
                            visible=visible, text=hover,
                            hovertemplate=f"%{{text}}<br>实测{what} %{{y:,}}<extra>{SHAPE_LABELS[shape]}</extra>")
    top = max(r.prompt_tokens for r in rows if r.day == day)

    def show(view: str) -> list[bool]:
        return [v == view for _ in SHAPES for v in views for _ in range(2)]

    buttons = [dict(label="每轮读取多少", method="update",
                    args=[{"visible": show("measured")}, {"yaxis.title.text": "从缓存读取的 token(实测)"}]),
               dict(label="每轮重算多少", method="update",
                    args=[{"visible": show("recomputed")}, {"yaxis.title.text": "重算的 token(实测)"}])]
    fig.update_layout(
        height=460, margin=dict(t=60, b=90),
        xaxis=dict(title=f"第 {day} 天的第几轮", dtick=1),
        yaxis=dict(title="从缓存读取的 token(实测)", range=[0, top * 1.05]),
        legend=dict(orientation="h", y=-0.22, x=0),
        updatemenus=[dict(type="buttons", direction="right", x=0, y=1.14, xanchor="left", buttons=buttons)],
    )
    return fig


@dataclass(frozen=True)
class SessionCost:
    """Both days of one shape: the tokens the server recomputed, and the cloud list prices of the same tokens."""

    shape: str
    requests: int
    prompt_tokens: int
    recomputed: int            # llama-server, measured
    usd: dict[str, float]      # rule -> total over both days (a conversion, not a bill)


def session_costs(recording: Recording) -> list[SessionCost]:
    """Per shape, both days: recomputed tokens (measured) and what each cloud rule's prediction would cost."""
    rows = round_rows(recording)
    predictions = {rule: calculator.analyze(recording, rule, **settings) for rule, _, settings in RULE_MODELS}
    out = []
    for shape in SHAPES:
        mine = of(rows, shape)
        sessions = {session_id(shape, 1), session_id(shape, 2)}
        usd = {rule: pricing.total_cost([r.prediction for r in predictions[rule] if r.session in sessions],
                                        model).total
               for rule, model, _ in RULE_MODELS}
        out.append(SessionCost(shape, len(mine), sum(r.prompt_tokens for r in mine),
                               sum(r.recomputed for r in mine), usd))
    return out
