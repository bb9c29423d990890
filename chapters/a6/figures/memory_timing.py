"""Lesson A6·2's figures: where the memory is at every request (swimlane), and the prefix break
per cache rule and k. Every value comes from a recording; nothing is typed in.

Figures stay interactive in the static page: menus and sliders switch between
precomputed traces in the browser (plotly.js), no kernel needed.
"""
from __future__ import annotations

import plotly.graph_objects as go

from prefixlab.presenting.labels import GROUP_LABELS
from prefixlab.presenting.scenarios import BAR_PARTS, measures, scenario_rows
from prefixlab.recording.format import Recording

from .swimlane import groups, lanes

# not there / the note is there / system prompt only: on disk (and in the conversation) but not here yet
LANE_COLORS = [[0, "#e5e7eb"], [0.5, "#16a34a"], [1, "#f59e0b"]]
LANE_KEY = ("不在这里", "在这里", "磁盘上已有,system prompt 里还没有")  # one per LANE_COLORS stop
LANE_ROWS = (("system", "system prompt 里"), ("conversation", "对话里"), ("disk", "磁盘上"))
PLACE_LABELS = {"tool_call": "remember 调用的参数", "tool_result": "工具结果", "update": "追加的 user 消息",
                "first_user": "第一条 user 消息", "user": "其他 user 消息"}


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _lane_cell(lane, row: str) -> int:
    if row == "disk":
        return 1 if lane.on_disk else 0
    if row == "conversation":
        return 1 if lane.in_messages else 0
    return 2 if lane.lagging else (1 if lane.in_system else 0)


def swimlane_figure(recording: Recording) -> go.Figure:
    """Experiment 2: for every recorded design, where the memory is at each request, day 1 and day 2.

    Three rows per group: in the system prompt (orange while the disk has a note it does not show yet),
    in the conversation (the request's other messages), on disk.
    """
    rows, z, hover = [], [], []
    columns = None
    group_names = groups(recording)
    for group in group_names:
        group_lanes = lanes(recording, group)
        columns = [f"D{l.day}·{l.round}" for l in group_lanes]
        for key, label in LANE_ROWS:
            rows.append(f"{GROUP_LABELS.get(group, group)} · {label}")
            z.append([_lane_cell(l, key) for l in group_lanes])
            hover.append([_hover(l, key) for l in group_lanes])
    fig = go.Figure(go.Heatmap(
        z=z, x=columns, y=rows, text=hover, hoverinfo="text", colorscale=LANE_COLORS, zmin=0, zmax=2,
        showscale=False, xgap=2, ygap=3))
    for (_, color), name in zip(LANE_COLORS, LANE_KEY):  # the colour key: legend entries only
        fig.add_scatter(x=[None], y=[None], mode="markers", name=name, hoverinfo="skip",
                        marker=dict(symbol="square", size=13, color=color, line=dict(width=1, color="#9ca3af")))
    day2 = next(i for i, c in enumerate(columns) if c.startswith("D2"))
    fig.add_vline(x=day2 - 0.5, line_width=2, line_color="#111827")
    fig.add_annotation(x=day2 - 0.5, y=1.06, yref="paper", text="第二天:新会话", showarrow=False)
    n = len(LANE_ROWS)
    for g in range(1, len(group_names)):  # a rule between groups
        fig.add_hline(y=g * n - 0.5, line_width=1, line_color="#9ca3af")
    ranges = {"全部": [-0.5, len(rows) - 0.5]}
    ranges.update({f"只看{GROUP_LABELS.get(g, g)}": [i * n - 0.5, (i + 1) * n - 0.5] for i, g in enumerate(group_names)})
    fig.update_layout(
        height=180 + 34 * len(rows), margin=dict(l=10, r=10, t=70, b=80), yaxis=dict(autorange="reversed"),
        legend=dict(orientation="h", x=0, y=-0.08, yanchor="top", title_text="颜色:"), showlegend=True,
        xaxis_title="第几天 · 第几轮请求",
        updatemenus=[dict(type="buttons", direction="right", x=0, y=1.16, xanchor="left",
                          buttons=[dict(label=name, method="relayout",
                                        args=[{"yaxis.range": ranges[name][::-1]}]) for name in ranges])])
    return fig


def _hover(lane, row: str) -> str:
    head = f"{lane.session} 第 {lane.round} 轮"
    if row == "disk":
        body = "<br>".join(_short(e) for e in lane.on_disk) or "(空)"
        return f"{head}<br>MEMORY.md 里:<br>{body}"
    if row == "conversation":
        body = "<br>".join(_short(e) for e in lane.in_messages) or "(没有)"
        where = "、".join(PLACE_LABELS.get(p, p) for p in lane.places)
        extra = f"<br>在:{where}" if where else ""
        extra += "<br>这一轮之前刚追加了一条记忆消息" if lane.appended else ""
        extra += "<br>这一轮之前刚改写了第一条 user 消息" if lane.rewritten else ""
        return f"{head}<br>这次请求的对话里(system 之外的消息):<br>{body}{extra}"
    body = "<br>".join(_short(e) for e in lane.in_system) or "(空)"
    extra = "<br><b>磁盘上已有,system prompt 里还没有</b>" if lane.lagging else ""
    extra += "<br>这一轮之前刚重建了 system prompt" if lane.refreshed else ""
    return f"{head}<br>这次请求的 system prompt 里:<br>{body}{extra}"


# -- Experiment 1: the prefix break -------------------------------------------------------------

# (label, rule, rule config). The explicit breakpoint sits on the memory header: the last block
# that never changes within a session, so everything before the memory body can be read back.
RULE_OPTIONS = [
    ("本机 llama-server(录制时的真实规则)", "llamacpp", {}),
    ("Anthropic · Claude Opus 5 · 自动缓存", "anthropic", {"model": "claude-opus-5"}),
    ("Anthropic · Opus 5 · 自动缓存 + 稳定段末尾显式缓存断点", "anthropic",
     {"model": "claude-opus-5", "breakpoints": "memory_header"}),
    ("Anthropic · Claude Haiku 4.5 · 自动缓存", "anthropic", {"model": "claude-haiku-4-5"}),
    ("OpenAI(自动缓存)", "openai", {}),
    ("vLLM(16 token 一块)", "vllm", {}),
    ("mlx_lm.server(最近 10 个 prompt)", "mlx", {}),
]


def _bar_parts(row) -> dict[str, int]:
    p = row.prediction
    return {"read": p.read, "write": p.write, "uncached": p.fresh - p.write}


def _row_hover(row, k: int) -> str:
    refresh = f"(假设第 {k} 轮写入后立即刷新)" if k else f"(不刷新:录制的{GROUP_LABELS['frozen']})"
    head = f"第 {row.round} 轮 {refresh}<br>prompt {row.prompt_tokens} token:读 {row.read} / 算 {row.fresh}"
    if row.measured is not None and measures(row.rule):
        head += f"<br>实测读取 {row.measured}"
    if row.break_block:
        head += (f"<br>前缀在 <b>{row.break_block}</b> 被打断"
                 f"<br>打断处之前:…{_esc(row.before_break)}<br>打断处之后:{_esc(row.after_break)}…")
    return head


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", "⏎")


def prefix_break_data(recording, ks=None, options=RULE_OPTIONS) -> dict:
    """Every (rule option, k) scenario, computed once: what the static figure switches between."""
    from prefixlab.cache import counterfactual

    ks = list(ks if ks is not None else [0, *counterfactual.k_values(recording)])
    return {(label, k): scenario_rows(recording, rule, config, k) for label, rule, config in options for k in ks}


def prefix_break_figure(data: dict) -> go.Figure:
    """Experiment 1: per-round bars (read / written / computed), prediction next to measurement.

    One small chart per cache rule, side by side, and one slider for k (0 = no refresh) that moves
    them all: changing the rule is looking at another chart, so it never resets k. The slider
    switches precomputed traces (plotly.js, no kernel).
    """
    from plotly.subplots import make_subplots

    labels = list(dict.fromkeys(label for label, _ in data))
    ks = sorted({k for _, k in data})
    cols = 2 if len(labels) > 1 else 1
    rows_n = -(-len(labels) // cols)
    fig = make_subplots(rows=rows_n, cols=cols, subplot_titles=labels, shared_xaxes=True,
                        vertical_spacing=0.16 / max(rows_n - 1, 1) if rows_n > 1 else 0.1, horizontal_spacing=0.08)
    index: dict[int, list[int]] = {k: [] for k in ks}
    for (label, k), rows in data.items():
        at = labels.index(label)
        cell = dict(row=at // cols + 1, col=at % cols + 1)
        first = at == 0 and k == ks[0]  # one legend entry per part: the first chart's
        x = [r.round for r in rows]
        hover = [_row_hover(r, k) for r in rows]
        for part, name, color in BAR_PARTS:
            index[k].append(len(fig.data))
            # One hover text per round is enough (hovermode "x" shows it for the whole column);
            # repeating it on every segment would triple the page weight.
            fig.add_bar(x=x, y=[_bar_parts(r)[part] for r in rows], name=name, marker_color=color,
                        hovertext=hover if part == "read" else None, showlegend=first,
                        hoverinfo="text" if part == "read" else "skip", visible=False, legendgroup=part, **cell)
        if rows and measures(rows[0].rule) and any(r.measured is not None for r in rows):
            index[k].append(len(fig.data))
            fig.add_scatter(x=x, y=[r.measured for r in rows], mode="markers", name="实测读取(服务器报告)",
                            marker=dict(symbol="line-ew-open", size=14, color="#111827",
                                        line=dict(width=3, color="#111827")),
                            hoverinfo="skip", visible=False, showlegend=k == ks[0], legendgroup="measured", **cell)

    def visible(k):
        on = set(index[k])
        return [i in on for i in range(len(fig.data))]

    for i in index[ks[0]]:
        fig.data[i].visible = True
    fig.update_xaxes(dtick=1)
    fig.update_xaxes(title_text="第几轮请求(第一天)", row=rows_n)
    fig.update_yaxes(title_text="token", col=1)
    fig.update_annotations(font_size=12)
    fig.update_layout(
        barmode="stack", height=170 + 230 * rows_n, hovermode="x", margin=dict(l=10, r=10, t=90, b=10),
        legend=dict(orientation="h", y=0.995, yanchor="top", x=0, yref="container"),
        sliders=[dict(active=0, currentvalue=dict(prefix="k = "), pad=dict(t=50),
                      steps=[dict(label="不刷新" if k == 0 else str(k), method="restyle",
                                  args=[{"visible": visible(k)}]) for k in ks])])
    return fig
