"""The calculator lab's state as text, HTML and a figure: what nbval compares, what the widgets show."""
from __future__ import annotations

import html

from ..scenarios import BAR_PARTS
from ..report import format_table


def report_text(s, rows) -> str:
    """A LabState (and its calculator rows) as plain text."""
    lines = [f"录制: {s.controls.recording}", f"场景: {s.scenario}"]
    lines += [line for line in (s.breakpoint_effect, s.k_changed) if line]
    lines += format_table(rows, s.comparable)
    lines.append(s.summary)
    lines.append("")
    lines += break_lines(s.break_info)
    if s.cost:
        lines.append("")
        lines += cost_lines(s.cost, s.comparison)
    lines += reading_lines(s.readings)
    lines += s.notes
    if s.error:
        lines.append(f"错误: {s.error}")
    return "\n".join(lines)


def break_lines(b: dict) -> list[str]:
    if not b:
        return []
    head = f"第 {b['round']} 轮:prompt {b['prompt_tokens']:,} token,从缓存读 {b['read']:,},重算 {b['fresh']:,}"
    if b["measured"] is not None:
        head += f"(服务器实测命中 {b['measured']:,}" + ("" if b["ok"] is None else
                                                      ",预测一致" if b["ok"] else ",预测不一致") + ")"
    lines = [head]
    if b["break_at"] is None:
        lines.append("没有断点可显示")
    elif b["whole_prompt"]:
        lines.append("整段 prompt 都和缓存里的一致(能读多少还看规则的上限,例如 llama.cpp 的 n-1)")
    else:
        lines.append(f"前缀断在第 {b['break_at']:,} 个 token,块 {b['block']}")
        lines.append(f"  断点前: {b['before']!r}")
        lines.append(f"  断点后: {b['after']!r}")
        if b["next_blocks"]:
            lines.append(f"  之后没变、也要重算的块: {', '.join(b['next_blocks'])}")
    return lines


def cost_lines(cost: dict, comparison: dict | None) -> list[str]:
    lines = [f"第 {cost['round']} 轮的费用({cost['model']},美元):"]
    for t in cost["terms"]:
        lines.append(f"  {t['label']}: {t['tokens']:,} token × ${t['base_price']:g}/MTok × {t['multiplier']:g}"
                     f" = ${t['usd']:.6f}")
    lines.append(f"  合计 ${cost['total']:.6f}(价格来源 {cost['source']})")
    if comparison:
        ratio = "—" if comparison["ratio"] is None else f"{comparison['ratio']:.3f} 倍"
        lines.append(f"{comparison['refresh']} ${comparison['refresh_usd']:.6f} vs "
                     f"{comparison['no_refresh']} ${comparison['no_refresh_usd']:.6f}:{ratio}")
    return lines


def reading_lines(readings: list[dict]) -> list[str]:
    """The session's cost under Claude's cache with the recorded clock and a day later, side by side."""
    if not readings:
        return []
    lines = [f"这个会话在 {readings[0]['rule']} 的缓存下(时间怎么算,结果不同):"]
    for r in readings:
        cost = "" if r["usd"] is None else f",${r['usd']:.6f}"
        lines.append(f"  {r['label']}:从缓存读 {r['read']:,} / {r['prompt']:,} token{cost}")
    if len(readings) == 1:
        lines.append("  两种算法结果一样:这个会话读到的都是同一天里自己写下的条目")
    else:
        lines.append("  差别来自跨天的命中:本地 llama-server 一直开着,就一直留着前一天的缓存;这是本地服务器的性质,"
                     "云端缓存几分钟到一小时就过期")
    return lines


def break_html(s) -> str:
    lines = break_lines(s.break_info)
    if not lines:
        return ""
    body = "".join(f"<div>{html.escape(line)}</div>" for line in lines[1:])
    return (f'<div><b>{html.escape(lines[0])}</b>'
            f'<div style="font-family:monospace;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere">'
            f'{body}</div></div>')


def cost_html(s) -> str:
    if not s.cost:
        return ""
    cell = '<td style="white-space:nowrap;padding:0 1em 0 0">'
    rows = "".join(
        f"<tr>{cell}{html.escape(t['label'])}</td>{cell}{t['tokens']:,} token × ${t['base_price']:g}/MTok"
        f" × {t['multiplier']:g}</td>{cell}= ${t['usd']:.6f}</td></tr>" for t in s.cost["terms"])
    out = (f"<div><b>第 {s.cost['round']} 轮的费用({html.escape(s.cost['model'])},美元)</b>"
           f'<table style="margin:0">{rows}<tr>'
           f"{cell}<b>合计</b></td>{cell}</td>{cell}<b>= ${s.cost['total']:.6f}</b></td></tr></table>")
    if s.comparison:
        c = s.comparison
        ratio = "—" if c["ratio"] is None else f"{c['ratio']:.3f} 倍"
        out += (f"<div>{html.escape(c['refresh'])}:${c['refresh_usd']:.6f}<br>"
                f"{html.escape(c['no_refresh'])}:${c['no_refresh_usd']:.6f}<br><b>比值 {ratio}</b></div>")
    readings = reading_lines(s.readings)
    if readings:
        out += "<div>" + "<br>".join(html.escape(line) for line in readings) + "</div>"
    return out + f"<div><small>价格来源:{html.escape(s.cost['source'])}</small></div></div>"


def figure(state):
    """Per-round bars (read / written / computed without caching), the measurement as markers."""
    import plotly.graph_objects as go

    rows = state.rows
    x = [r["round"] for r in rows]
    fig = go.Figure()
    for part, name, color in BAR_PARTS:
        fig.add_bar(x=x, y=[r[part] for r in rows], name=name, marker_color=color)
    if any(r["measured"] is not None for r in rows):
        # an "-open" symbol is drawn in marker.color; line.color alone would leave it in the colorway
        fig.add_scatter(x=x, y=[r["measured"] for r in rows], mode="markers", name="服务器实测命中",
                        marker=dict(symbol="line-ew-open", size=24, color="#111827", line=dict(width=3)))
    chosen = state.controls.round
    if chosen is not None:
        fig.add_vrect(x0=chosen - 0.5, x1=chosen + 0.5, fillcolor="#f59e0b", opacity=0.15, line_width=0)
    fig.update_layout(barmode="stack", height=360, margin=dict(l=10, r=10, t=40, b=10),
                      template="plotly_white", legend=dict(orientation="h", y=1.12, x=0),
                      xaxis=dict(title="第几轮请求", dtick=1), yaxis_title="token")
    return fig


def scenario_html(s) -> str:
    """The scenario line ``report()`` prints, and what the breakpoint or a session change did."""
    out = f"<div><b>场景</b>:{html.escape(s.scenario)}</div>"
    return out + "".join(f'<div style="color:#92400e">{html.escape(line)}</div>'
                         for line in (s.breakpoint_effect, s.k_changed) if line)
