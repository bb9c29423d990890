"""A3·1's figure: for each command case, how long each way took to return and how much output it kept.

Two panels side by side (plotly, works without a kernel): seconds until the call returned, and
output bytes handed back (log scale). A dropdown picks the case; the bars are the three ways.
"""
from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chapters.a3.escapes import COMMANDS, WAYS

CASE_LABELS = {"never_ends": "永不结束", "prints_forever": "打印不停", "setsid_child": "setsid 逃出进程组",
               "reads_secret": "读环境里的密钥"}
COLORS = {"subprocess.run": "#dc2626", "group + drain": "#f59e0b", "miniagent": "#2563eb"}


def command_figure(runs) -> go.Figure:
    by = {(r.case, r.way): r for r in runs}
    cases = [c for c in COMMANDS if any(k[0] == c for k in by)]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("返回用了多少秒", "交回的输出(字节,对数轴)"))
    for i, case in enumerate(cases):
        rows = [by[case, w] for w in WAYS]
        visible = i == 0
        fig.add_trace(go.Bar(x=list(WAYS), y=[r.seconds for r in rows], visible=visible, showlegend=False,
                             marker_color=[COLORS[w] for w in WAYS],
                             text=[f"{r.seconds:.2f} s · 留下 {r.survivors} 个进程" for r in rows],
                             hovertemplate="%{x}<br>%{text}<extra></extra>"), row=1, col=1)
        fig.add_trace(go.Bar(x=list(WAYS), y=[max(r.kept_bytes, 1) for r in rows], visible=visible,
                             showlegend=False, marker_color=[COLORS[w] for w in WAYS],
                             text=[f"{r.kept_bytes:,} 字节" for r in rows],
                             hovertemplate="%{x}<br>%{text}<extra></extra>"), row=1, col=2)
    buttons = []
    for i, case in enumerate(cases):
        visible = [False] * (2 * len(cases))
        visible[2 * i] = visible[2 * i + 1] = True
        buttons.append(dict(label=CASE_LABELS[case], method="update", args=[{"visible": visible}]))
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_layout(height=380, margin=dict(t=70, l=50, r=20, b=40),
                      updatemenus=[dict(buttons=buttons, x=0, xanchor="left", y=1.25, yanchor="top")])
    return fig
