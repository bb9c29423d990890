"""A2·4's views: tools from an MCP server in the request, and what a changed tool list does to the cache.

From the a2-4 recording (course server, scripted): per session each request's prompt tokens, the tools it
offered, the ``cached_tokens`` the server reported and the calculator's prediction; the first request whose
tool list differs from the one before, and where its prefix broke. Cloud: the sessions priced under
Anthropic's and OpenAI's cache rules and dated list prices (``data/prices/``), as recorded.
From data/a2/mcp-tools.json: tokens per tool and where the MCP tools sit (rendered offline).
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from chapters.a2.mcp_costs import stored
from chapters.a2.paths import MCP_RECORDING
from chapters.a2.tool_blocks import CLOUD_MODEL
from prefixlab.cache import calculator, pricing, rules
from prefixlab.recording.format import Recording, load

OPENAI_MODEL = "gpt-5.5"  # as A4·2 and A6·R: automatic longest-prefix caching
SESSIONS = ("one-server", "one-server-changed", "two-servers-changed")
TITLES = {"one-server": "一个服务器,列表不变", "one-server-changed": "一个服务器,中途加一个工具",
          "two-servers-changed": "两个服务器,第一个中途加一个工具"}
COLOURS = {"one-server": "#1f77b4", "one-server-changed": "#ff7f0e", "two-servers-changed": "#d62728"}


def recording() -> Recording:
    return load(MCP_RECORDING)


@dataclass(frozen=True)
class Request:
    number: int
    tools: list[str]
    prompt: int
    cached: int      # what the server reported
    predicted: int   # what the calculator predicts


@dataclass(frozen=True)
class McpSession:
    name: str
    title: str
    requests: list[Request]
    anthropic: float  # input cost, USD, as recorded, under Anthropic's rule (CLOUD_MODEL)
    openai: float     # ... under OpenAI's rule (OPENAI_MODEL)

    @property
    def changed_at(self) -> int | None:
        """The number of the first request whose tool list differs from the one before (None: never)."""
        for before, now in zip(self.requests, self.requests[1:]):
            if before.tools != now.tools:
                return now.number
        return None

    @property
    def agree(self) -> int:
        return sum(r.cached == r.predicted for r in self.requests)

    def recomputed(self) -> int:
        """Prompt tokens the server computed (not read from the cache), summed over the requests."""
        return sum(r.prompt - r.cached for r in self.requests)


def cloud_cost(rec: Recording, session: str, rule: str, model: str) -> float:
    rows = calculator.analyze(rec, rule, sessions=session, **rules.settings(rule, model=model))
    return pricing.total_cost([r.prediction for r in rows], model).total


def sessions(rec: Recording | None = None) -> dict[str, McpSession]:
    rec = rec or recording()
    local = {r.seq: r for r in calculator.analyze(rec)}
    out = {}
    for name in SESSIONS:
        calls = rec.session_calls(name)
        requests = [Request(i, [t["function"]["name"] for t in c.request.get("tools") or []], c.prompt_tokens,
                            c.cached_tokens, local[c.seq].read) for i, c in enumerate(calls, 1)]
        out[name] = McpSession(name, TITLES[name], requests, cloud_cost(rec, name, "anthropic", CLOUD_MODEL),
                               cloud_cost(rec, name, "openai", OPENAI_MODEL))
    return out


def prices() -> tuple[pricing.ModelPrice, pricing.ModelPrice]:
    return pricing.model_price(CLOUD_MODEL), pricing.model_price(OPENAI_MODEL)


def offline() -> dict:
    """data/a2/mcp-tools.json without the definitions."""
    return {k: v for k, v in stored().items() if k != "definitions"}


def cache_figure(rows: dict[str, McpSession]) -> go.Figure:
    """Per session and request: the prompt, the part read from the cache (server) and the calculator's mark."""
    fig = go.Figure()
    for name, s in rows.items():
        x = [f"{s.title}<br>请求 {r.number}" for r in s.requests]
        fig.add_bar(name=f"{s.title}:读取", x=x, y=[r.cached for r in s.requests], marker_color=COLOURS[name],
                    hovertemplate="读取 %{y:,} 个 token<extra></extra>", legendgroup=name)
        fig.add_bar(name=f"{s.title}:重算", x=x, y=[r.prompt - r.cached for r in s.requests],
                    marker_color="#c7c7c7", hovertemplate="重算 %{y:,} 个 token<extra></extra>",
                    legendgroup=name, showlegend=False)
        fig.add_scatter(x=x, y=[r.predicted for r in s.requests], mode="markers", marker_symbol="line-ew-open",
                        marker_size=18, marker_color="black", name="计算器预测的读取", showlegend=name == SESSIONS[0],
                        hovertemplate="预测读取 %{y:,}<extra></extra>")
    fig.update_layout(barmode="stack", height=420, margin=dict(l=50, r=20, t=40, b=120),
                      title="a2-4 录制:每个请求读取多少、重算多少(横线:计算器的预测)",
                      yaxis_title="prompt token", legend=dict(orientation="h", y=-0.45), xaxis_tickangle=-45)
    return fig
