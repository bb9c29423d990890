"""A9·3: the price of one solved task, for each design of the shipped evaluation, under six providers.

``prefixlab.presenting.cost`` does the work: the measured tokens (llama.cpp), and each run's requests replayed
under five cloud providers' cache rules and priced at their dated tables (``data/prices/``). This module
keeps the results for the page and draws them.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import plotly.graph_objects as go

from prefixlab.presenting import cost

from chapters.a9.figures import passrate
from chapters.a9.paths import EVALUATION

PROVIDERS = cost.PROVIDERS
CLOUD = tuple(p for p in PROVIDERS if p.model)


@lru_cache(maxsize=4)
def priced(folder: Path = EVALUATION) -> dict:
    """{(design, rule): cost.Priced} for every design and provider."""
    return cost.per_solved(list(passrate.runs(folder)), folder)


def get(design: str, rule: str, folder: Path = EVALUATION) -> cost.Priced:
    return priced(folder)[design, rule]


def usd(x: float | None, digits: int = 4) -> str:
    """Dollars as text; None (nothing solved) as "未定义"."""
    return "未定义" if x is None else f"{x:.{digits}f}"


def count(x: float | None) -> str:
    return "未定义" if x is None else f"{x:,.0f}"


def token_rows(folder: Path = EVALUATION) -> list[list]:
    """Per design, the measured tokens (llama.cpp): per run and per solved task."""
    out = []
    for d in passrate.designs(folder):
        p = get(d, "llamacpp", folder)
        out.append([passrate.label(d), f"{p.solved} / {p.runs}", count(p.prompt_tokens / p.runs),
                    count(p.per_solved_tokens), count(p.per_solved_read), count(p.per_solved_output)])
    return out


def dollar_rows(folder: Path = EVALUATION) -> list[list]:
    """Per provider (cloud), per live design: dollars per run and per solved task."""
    out = []
    for p in CLOUD:
        row = [p.label]
        for d in passrate.live_designs(folder):
            x = get(d, p.rule, folder)
            row += [usd(x.per_run_usd, 5), usd(x.per_solved_usd, 5)]
        out.append(row)
    return out


def assumption_rows() -> list[list]:
    out = []
    for p in PROVIDERS:
        a = cost.assumptions(p)
        out.append([p.label, a.model or "—(本地,不计价)", a.lifetime, a.table_date or "—"])
    return out


def source_rows() -> list[list]:
    return [[p.label, cost.assumptions(p).table_url] for p in CLOUD]


def figure(folder: Path = EVALUATION) -> go.Figure:
    """Dollars per run and per solved task, per live design, under each cloud provider (log scale)."""
    fig = go.Figure()
    labels = [p.label for p in CLOUD]
    for d in passrate.live_designs(folder):
        runs = [get(d, p.rule, folder).per_run_usd for p in CLOUD]
        solved = [get(d, p.rule, folder).per_solved_usd for p in CLOUD]
        color = passrate.COLORS.get(d)
        fig.add_trace(go.Bar(x=labels, y=runs, name=f"{passrate.label(d)}:每次运行", marker_color=color, opacity=0.45,
                             hovertemplate="%{x}<br>每次运行 %{y:.5f} 美元<extra>" + passrate.label(d) + "</extra>"))
        fig.add_trace(go.Bar(x=labels, y=solved, name=f"{passrate.label(d)}:每个解决的任务", marker_color=color,
                             hovertemplate="%{x}<br>每个解决的任务 %{y:.5f} 美元<extra>" + passrate.label(d) + "</extra>"))
    fig.update_layout(title="每次运行 vs 每个解决的任务(美元,对数坐标)", barmode="group",
                      yaxis=dict(title="美元", type="log"), height=420, legend=dict(orientation="h", y=1.12, x=0),
                      margin=dict(l=10, r=10, t=80, b=40), template="plotly_white")
    return fig
