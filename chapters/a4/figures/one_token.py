"""A4·1's figure: one token changed at position p -- what each cache rule reads back.

The figure stays interactive in the static page: every row is computed here, from the recording,
and a slider moves between the precomputed probes (no kernel needed).
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.cache import calculator, rules
from prefixlab.recording.format import Recording

ANTHROPIC_MODEL = "claude-opus-5"  # minimum cacheable prefix 512 tokens (the prompt has about 1,900)
# An explicit breakpoint on the last tool: the one block name every request of the sweep has at the
# end of a stable part (a probe that changes a header of the system text renames the system blocks).
STABLE_BREAKPOINTS = ["tool:remember"]
# (view, legend label, rule, rule settings): the rules' views of the same recorded prompts
VIEWS = (("llamacpp", "llama.cpp 推算", "llamacpp", {}),
         ("anthropic", "Anthropic 推算(只开自动缓存)", "anthropic", {"model": ANTHROPIC_MODEL}),
         ("anthropic_bp", "Anthropic 推算(另在工具末尾加一个缓存断点)", "anthropic",
          {"model": ANTHROPIC_MODEL, "breakpoints": STABLE_BREAKPOINTS}),
         ("openai", "OpenAI 推算", "openai", {}))
PART_LABELS = {"system": "system prompt", "tools": "工具定义", "task": "任务(user 消息)"}


@dataclass(frozen=True)
class ProbeRow:
    """One probe of the sweep: where the token changed and what each rule reads."""

    p: int
    part: str
    word: str
    replacement: str
    prompt_tokens: int
    measured: int
    read: dict[str, int]  # view -> predicted read


def view_rows(recording: Recording) -> dict[str, dict[str, calculator.Row]]:
    """Every request under every view, by session id."""
    return {view: {r.session: r for r in calculator.analyze(recording, rule, **config)}
            for view, _, rule, config in VIEWS}


def probe_rows(recording: Recording) -> list[ProbeRow]:
    """The probes, in order of p, each with the measured read and every view's prediction."""
    by_rule = view_rows(recording)
    rows = []
    for info in recording.manifest["sessions"]:
        probe = info["probe"]
        if probe["role"] != "changed":
            continue
        measured = by_rule["llamacpp"][info["id"]]
        rows.append(ProbeRow(probe["position"], probe["part"], probe["word"], probe["as"], measured.prompt_tokens,
                             measured.measured, {view: by_rule[view][info["id"]].read for view, *_ in VIEWS}))
    return sorted(rows, key=lambda r: r.p)


def _caption(row: ProbeRow) -> str:
    return (f"p = {row.p:,}:{PART_LABELS[row.part]}里的 “{row.word}” 改成 “{row.replacement}”<br>"
            f"实测读取 {row.measured:,},重算 {row.prompt_tokens - row.measured:,};"
            f"Anthropic {row.read['anthropic']:,}(加断点 {row.read['anthropic_bp']:,}),OpenAI {row.read['openai']:,}")


def sweep_figure(rows: list[ProbeRow]) -> go.Figure:
    """Cached tokens against p: measured, and predicted under each rule; a slider picks one probe."""
    ps = [r.p for r in rows]
    n = rows[0].prompt_tokens
    fig = go.Figure()
    fig.add_scatter(x=ps, y=[r.measured for r in rows], mode="markers", name="llama-server 实测",
                    marker=dict(size=11, symbol="circle-open", line=dict(width=2)),
                    hovertemplate="p = %{x:,}<br>实测读取 %{y:,}<extra></extra>")
    for view, label, rule, _ in VIEWS:
        fig.add_scatter(x=ps, y=[r.read[view] for r in rows], mode="lines+markers", name=label,
                        # a rule of a server reads any prefix (a straight line); a cloud rule rounds (steps)
                        line=dict(shape="linear" if rules.get(rule).SERVER else "hv", width=2),
                        marker=dict(size=5), hovertemplate=f"p = %{{x:,}}<br>{label} %{{y:,}}<extra></extra>")

    def marker(row: ProbeRow) -> dict:
        return dict(type="line", x0=row.p, x1=row.p, y0=0, y1=n, line=dict(dash="dot", width=1, color="gray"))

    def note(row: ProbeRow) -> dict:
        return dict(x=0, y=1.02, xref="paper", yref="paper", xanchor="left", yanchor="bottom",
                    showarrow=False, align="left", text=_caption(row))

    steps = [dict(method="relayout", label=f"{r.p}", args=[{"shapes": [marker(r)], "annotations": [note(r)]}])
             for r in rows]
    fig.update_layout(
        height=520, margin=dict(t=110, b=120),
        xaxis=dict(title="打断处 p(从这里起与缓存对不上)", range=[0, n]),
        yaxis=dict(title="从缓存读取的 token", range=[0, n * 1.05]),
        legend=dict(orientation="h", y=-0.42, x=0),
        shapes=[marker(rows[0])], annotations=[note(rows[0])],
        sliders=[dict(active=0, steps=steps, currentvalue=dict(prefix="p = "), pad=dict(t=50))],
    )
    return fig
