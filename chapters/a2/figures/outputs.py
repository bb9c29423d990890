"""A2·3's figures: a big tool result three ways; one change by rewrite or by edit (from data/a2/outputs-edits.json)."""
from __future__ import annotations

import json

import plotly.graph_objects as go

from chapters.a2.paths import OUTPUTS_EDITS

WAYS = {"whole": "整个读入", "capped": "默认截断(两头)", "paged": "分页:第一页"}


def data() -> dict:
    return json.loads(OUTPUTS_EDITS.read_text(encoding="utf-8"))


def outputs_figure(d: dict) -> go.Figure:
    """Tokens of the tool result, and whether the one failed reading is in it."""
    out = d["outputs"]
    names = list(WAYS)
    fig = go.Figure(go.Bar(
        x=[WAYS[n] for n in names], y=[out[n]["tokens"] for n in names],
        marker_color=["#d62728" if n == "whole" else "#1f77b4" for n in names],
        text=[f"{out[n]['tokens']:,}<br>{'含' if out[n]['has_needle'] else '不含'} ERR 那一行" for n in names],
        textposition="outside",
        hovertemplate="%{x}: %{y:,} 个 token<extra></extra>"))
    fig.update_layout(title=f"读一个 {out['lines']:,} 行的文件:工具结果有多少 token", yaxis_type="log",
                      yaxis_title="工具结果的 token(对数轴)", height=380, margin=dict(t=60, b=40),
                      showlegend=False)
    return fig


def edits_figure(d: dict) -> go.Figure:
    """Completion tokens of one change: the whole file in write_file, or old and new text in edit_file."""
    files = list(d["edits"])
    fig = go.Figure()
    for key, label, colour in (("write_file", "整个文件重写(write_file)", "#d62728"),
                               ("edit_file", "精确替换(edit_file)", "#2ca02c")):
        fig.add_bar(name=label, x=[f"{d['edits'][f]['file']}({d['edits'][f]['lines']} 行)" for f in files],
                    y=[d["edits"][f][key] for f in files], marker_color=colour,
                    text=[f"{d['edits'][f][key]:,}" for f in files], textposition="outside",
                    hovertemplate=label + ":%{y:,} 个 token<extra></extra>")
    fig.update_layout(title="改一行:模型要生成多少 token", barmode="group", yaxis_type="log",
                      yaxis_title="补全 token(对数轴)", height=380, margin=dict(t=60, b=40),
                      legend=dict(orientation="h", y=-0.2))
    return fig
