"""A2·1's views: the tool block inside the rendered prompt; malformed calls per shape (live model); the retry.

``rendered_html`` shows the first request of a session as the template renders it, the tool block marked;
``shapes_figure`` draws data/a2/call-shapes.json (the live model's replies, sorted by why they failed);
``retry_rows`` reads the a2-1 recording (course server, scripted) with the calculator's prediction per request.
"""
from __future__ import annotations

import html
import json

import plotly.graph_objects as go

from chapters.a2.paths import CALL_SHAPES_SUMMARY, RETRY_RECORDING
from chapters.a2.tool_blocks import renderer, tool_block
from prefixlab.cache import calculator
from prefixlab.recording.format import load

WHY = {"usable": ("可用的调用", "#2ca02c"), "no_native_call": ("服务器没解析出调用", "#d62728"),
       "no_call_found": ("文字里找不到调用", "#d62728"), "bad_arguments": ("参数不对", "#ff7f0e"),
       "unknown_tool": ("工具名不对", "#9467bd"), "arguments_not_json": ("参数不是 JSON", "#8c564b")}
SHAPES = {"native": "原生 tools(模板渲染,服务器解析)", "text": "写在文字里(我们自己解析)"}


def rendered_html(system: str, tools: list[dict], task: str, model: str = "course") -> str:
    """The rendered first request, the tool block on a yellow ground."""
    r = renderer(model)
    prompt = r.prompt([{"role": "system", "content": system}, {"role": "user", "content": task}], tools)
    block = tool_block(system, tools, model)
    start = prompt.index(block)
    parts = [html.escape(prompt[:start]), f'<mark style="background:#fff3b0">{html.escape(block)}</mark>',
             html.escape(prompt[start + len(block):])]
    return ('<pre style="white-space:pre-wrap;font-size:.78em;max-height:28em;overflow:auto;'
            f'border:1px solid #ddd;padding:.6em">{"".join(parts)}</pre>')


def summary() -> dict:
    return json.loads(CALL_SHAPES_SUMMARY.read_text(encoding="utf-8"))


def shapes_figure(s: dict) -> go.Figure:
    """Per shape: the first replies sorted by outcome (usable, or why not)."""
    fig = go.Figure()
    for why, (label, colour) in WHY.items():
        ys = []
        for shape in SHAPES:
            row = s["shapes"][shape]
            ys.append(row["usable"] if why == "usable" else row["why"].get(why, 0))
        if not any(ys):
            continue
        fig.add_bar(name=label, x=list(SHAPES.values()), y=ys, marker_color=colour,
                    marker_pattern_shape="" if why == "usable" else "/",
                    hovertemplate=label + ":%{y} 次<extra></extra>")
    n = {shape: s["shapes"][shape]["samples"] for shape in SHAPES}
    fig.update_layout(barmode="stack", height=380, margin=dict(t=60, b=40),
                      title=f"live 模型的第一次回答(每种形状 {n['native']} / {n['text']} 次)",
                      yaxis_title="回答数", legend=dict(orientation="h", y=-0.2))
    return fig


def retry_recording():
    return load(RETRY_RECORDING)


def retry_rows(rec=None) -> list[dict]:
    """Every request of the a2-1 recording: session, prompt, cached (measured and predicted), fresh."""
    rec = rec or retry_recording()
    out = []
    for row in calculator.analyze(rec):
        call = rec.calls[row.seq]
        out.append({"session": call.session, "n": len([r for r in out if r["session"] == call.session]) + 1,
                    "prompt": call.prompt_tokens, "cached": call.cached_tokens, "predicted": row.read,
                    "fresh": call.prompt_tokens - call.cached_tokens, "last": call.request["messages"][-1]})
    return out


def session_totals(rows: list[dict]) -> dict[str, dict]:
    out = {}
    for r in rows:
        t = out.setdefault(r["session"], {"requests": 0, "prompt": 0, "fresh": 0})
        t["requests"] += 1
        t["prompt"] += r["prompt"]
        t["fresh"] += r["fresh"]
    return out
