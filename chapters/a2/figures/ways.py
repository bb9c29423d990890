"""A2·5's views of the four-ways recording (live model): the rates with their intervals, a reply of each
way, and the calculator's prediction of every request's ``cached_tokens``.

``ways_figure`` draws ``four_ways.measure()`` (per way: well formed, valid under the tool's schema, the
right call, as percent of the runs, with Wilson 95 % intervals); ``replies`` picks one recorded reply per
way; ``cache_check`` runs the calculator over the recording.
"""
from __future__ import annotations

import plotly.graph_objects as go

from chapters.a2.four_ways import WAYS
from chapters.a2.paths import FOUR_WAYS_RECORDING
from prefixlab.cache import calculator
from prefixlab.recording.format import load

WAY_LABELS = {"auto": "原生 auto", "required": "required", "schema": "JSON schema(约束解码)",
              "text": "正文解析 + 一次重试"}
COUNTS = {"well_formed": ("格式合格", "#2ca02c"), "schema_valid": ("参数合乎工具的 schema", "#1f77b4"),
          "right_tool": ("调用对了(跑检查)", "#ff7f0e")}


def recording():
    return load(FOUR_WAYS_RECORDING)


def ways_figure(m: dict) -> go.Figure:
    """Per way, three bars (percent of runs) with the 95 % interval as error bars."""
    fig = go.Figure()
    for count, (label, colour) in COUNTS.items():
        ys, lows, highs, texts = [], [], [], []
        for way in WAYS:
            row = m["ways"][way]
            pct = 100 * row[count] / row["runs"]
            low, high = row[f"{count}_interval_percent"]
            ys.append(round(pct, 1))
            lows.append(round(pct - low, 1))
            highs.append(round(high - pct, 1))
            texts.append(f"{row[count]}/{row['runs']}")
        fig.add_bar(name=label, x=[WAY_LABELS[w] for w in WAYS], y=ys, marker_color=colour, text=texts,
                    textposition="outside",
                    error_y=dict(type="data", symmetric=False, array=highs, arrayminus=lows, color="#555"),
                    hovertemplate=label + ":%{text} 次(%{y}%)<extra></extra>")
    runs = sorted({m["ways"][w]["runs"] for w in WAYS})
    fig.update_layout(barmode="group", height=420, margin=dict(t=60, b=40),
                      title=f"live 模型的第一次回答,每种方式 {'/'.join(map(str, runs))} 次(竖线:95% 区间)",
                      yaxis=dict(title="占这种方式的次数(%)", range=[0, 110]), legend=dict(orientation="h", y=-0.18))
    return fig


def replies(rec=None) -> dict[str, str]:
    """The first seed's reply of each way, as the server returned it (content, or the parsed call)."""
    rec = rec or recording()
    out = {}
    for call in rec.calls:
        way = call.session.split("-")[0]
        if way in out or way not in WAYS:
            continue
        message = call.response["choices"][0]["message"]
        calls = message.get("tool_calls")
        out[way] = (f"tool_calls: {calls[0]['function']['name']} {calls[0]['function']['arguments']}" if calls
                    else message.get("content") or "")
    return out


def wrong_calls(rec=None) -> list[str]:
    """The schema way's calls that were well formed but not the check run, as ``name arguments``."""
    import json

    rec = rec or recording()
    out = []
    for call in rec.calls:
        if not call.session.startswith("schema-"):
            continue
        value = json.loads(call.response["choices"][0]["message"]["content"])
        if value.get("tool") != "run_command" or "tools/check.py" not in str(value["arguments"].get("command", "")):
            out.append(f"{value.get('tool')} {json.dumps(value.get('arguments'), ensure_ascii=False)}")
    return out


def cache_check(rec=None) -> dict:
    """The calculator over every request: how many, how many it predicts exactly, the distinct values."""
    rec = rec or recording()
    rows = calculator.analyze(rec)
    measured = [rec.calls[r.seq].cached_tokens for r in rows]
    return {"requests": len(rows), "exact": sum(r.read == m for r, m in zip(rows, measured)),
            "values": sorted(set(measured)), "epochs": len({c.epoch for c in rec.calls})}


def cut_off(rec=None) -> dict[str, int]:
    """Per way: how many replies the server ended at ``max_tokens`` (``finish_reason`` "length")."""
    rec = rec or recording()
    out = {way: 0 for way in WAYS}
    for call in rec.calls:
        way = call.session.split("-")[0]
        if way in out and call.response["choices"][0].get("finish_reason") == "length":
            out[way] += 1
    return out


def same_start(rec=None) -> dict[str, int]:
    """Per seed, compare the first replies: ``text_same``, seeds where the text way's reply is auto's, word
    for word (same request, same sampling); ``required_starts``, seeds where required's reply begins with
    auto's whole reply; ``seeds``, seeds that hold all three."""
    rec = rec or recording()
    first = {}
    for call in rec.calls:
        way, seed = call.session.rsplit("-", 1)
        first.setdefault((way, int(seed)), call.response["choices"][0]["message"].get("content") or "")
    seeds = sorted({s for w, s in first if all((x, s) in first for x in ("auto", "required", "text"))})
    return {"seeds": len(seeds),
            "text_same": sum(first[("text", s)] == first[("auto", s)] for s in seeds),
            "required_starts": sum(first[("required", s)].startswith(first[("auto", s)]) for s in seeds)}
