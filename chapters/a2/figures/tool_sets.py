"""A2·2's views: one task with bash only, pi's four tools, fifteen tools.

From the a2-2 recording (course server, scripted): per session the requests, the prompt tokens, the tool
block's tokens in each request (the calculator's attribution: part ``tools``) and their share; the input
cost under Anthropic's cache rule and dated list price (``CLOUD_MODEL``), with the session as recorded.
From data/a2/tool-blocks.json: the same sets over A1·2's twenty rounds (rendered offline).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import plotly.graph_objects as go

from chapters.a2.paths import TOOL_BLOCKS, TOOL_SETS_RECORDING
from chapters.a2.tool_blocks import CLOUD_MODEL, tool_set_info, tool_set_names
from prefixlab.cache import calculator, composition, pricing, rules
from prefixlab.recording.format import Recording, load

COLOURS = {"bash": "#2ca02c", "pi": "#1f77b4", "fifteen": "#d62728"}


def recording() -> Recording:
    return load(TOOL_SETS_RECORDING)


def projection() -> dict:
    """data/a2/tool-blocks.json's A2·2 part: each set over A1·2's twenty rounds."""
    return json.loads(TOOL_BLOCKS.read_text(encoding="utf-8"))["a2_2"]


@dataclass(frozen=True)
class SetSession:
    name: str
    title: str
    tools: int
    requests: int
    prompt: int            # prompt tokens of the session's requests, summed
    block: int             # tokens of the tool block in one request
    block_total: int       # ... summed over the requests
    agree: int             # requests whose cached_tokens the calculator predicted exactly
    cloud: float           # input cost under Anthropic's rule, USD

    @property
    def share(self) -> int:
        return round(100 * self.block_total / self.prompt)


def cloud_cost(rec: Recording, session: str) -> float:
    rows = calculator.analyze(rec, "anthropic", sessions=session, **rules.settings("anthropic", model=CLOUD_MODEL))
    return pricing.total_cost([r.prediction for r in rows], CLOUD_MODEL).total


def sessions(rec: Recording | None = None) -> list[SetSession]:
    rec = rec or recording()
    replay = calculator.prepare(rec)
    local = {r.seq: r for r in calculator.analyze(rec)}
    out = []
    for name in tool_set_names():
        calls = rec.session_calls(name)
        blocks = [composition.tokens_by_part(replay.attributions[c.seq], c.request["messages"])["tools"] for c in calls]
        out.append(SetSession(name, tool_set_info(name)["title"], len(calls[0].request["tools"]), len(calls),
                              sum(c.prompt_tokens for c in calls), blocks[0], sum(blocks),
                              sum(1 for c in calls if local[c.seq].read == c.cached_tokens),
                              cloud_cost(rec, name)))
    return out


def price() -> pricing.ModelPrice:
    return pricing.model_price(CLOUD_MODEL)


def share_figure(rows: list[SetSession]) -> go.Figure:
    """Per set: the session's prompt tokens, the tool block's part of them on top."""
    fig = go.Figure()
    x = [f"{r.title}" for r in rows]
    fig.add_bar(name="其余(system 文字、任务、历史)", x=x, y=[r.prompt - r.block_total for r in rows],
                marker_color="#c7c7c7", hovertemplate="其余:%{y:,} 个 token<extra></extra>")
    fig.add_bar(name="工具块", x=x, y=[r.block_total for r in rows], marker_color=[COLOURS[r.name] for r in rows],
                text=[f"{r.share}%" for r in rows], textposition="inside",
                hovertemplate="工具块:%{y:,} 个 token<extra></extra>")
    fig.update_layout(barmode="stack", height=380, margin=dict(t=60, b=40), yaxis_title="整个会话的 prompt token",
                      title="同一个任务、同样的步骤:工具块在会话的 prompt 里占多少",
                      legend=dict(orientation="h", y=-0.2))
    return fig
