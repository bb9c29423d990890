"""A5·2's figure and tables: what masking old tool outputs saves and what it makes the server recompute.

One session, recorded four ways (``chapters/a5/experiments/tool_output_masking.py``): without
masking, and with old results cut to their first line on ``--cache-reuse 0`` and ``256``, and cut to
a fixed placeholder on ``--cache-reuse 256``. Every number comes from the recordings; the cloud
columns run the same requests under a provider's cache rule (``prefixlab.cache.calculator``) and
price them with the dated price table (``prefixlab.cache.pricing``): a conversion, not a bill.
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.cache import calculator, rules, pricing
from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import Recording, load

# setup -> (label, recording)
SETUPS = {
    "nomask-reuse0": ("不遮", "a5-2-nomask-reuse0-smollm2-llamacpp"),
    "reuse0": ("留第一行,--cache-reuse 0", "a5-2-masking-reuse0-smollm2-llamacpp"),
    "reuse256": ("留第一行,--cache-reuse 256", "a5-2-masking-reuse256-smollm2-llamacpp"),
    "placeholder-reuse256": ("占位符,--cache-reuse 256", "a5-2-placeholder-reuse256-smollm2-llamacpp"),
}
IN_FIGURE = ("nomask-reuse0", "reuse0", "reuse256")  # the placeholder's rounds are exercise 1
CLOUD = {"anthropic": "claude-opus-5", "openai": "gpt-5-4"}  # under each provider's own cache rule


def recordings() -> dict[str, Recording]:
    return {setup: load(RECORDINGS / name) for setup, (_, name) in SETUPS.items()}


@dataclass(frozen=True)
class Totals:
    setup: str
    label: str
    requests: int
    sent: int        # prompt tokens of every request
    read: int        # read from the server's cache
    recomputed: int  # sent - read
    agree: int       # requests whose cached_tokens the calculator predicted exactly


def totals(recs: dict[str, Recording]) -> list[Totals]:
    out = []
    for setup, rec in recs.items():
        calls = rec.session_calls("masking")
        sent, read = sum(c.prompt_tokens for c in calls), sum(c.cached_tokens for c in calls)
        agree = calculator.summarize(calculator.analyze(rec)).agree
        out.append(Totals(setup, SETUPS[setup][0], len(calls), sent, read, sent - read, agree))
    return out


def rule_settings(provider: str) -> dict:
    """The cache rule's settings: Anthropic's depend on the model (its minimum length), OpenAI's do not."""
    return rules.settings(provider, model=CLOUD[provider])


def cloud_cost(rec: Recording, provider: str) -> float:
    """The session's input cost in US dollars under ``provider``'s cache rule and list price."""
    rows = calculator.analyze(rec, provider, **rule_settings(provider))
    return pricing.total_cost([r.prediction for r in rows], CLOUD[provider]).total


def price_source(provider: str) -> str:
    return pricing.model_price(CLOUD[provider]).source


def round_rows(rec: Recording) -> list[tuple[int, int, int]]:
    """(round, prompt tokens, cached tokens) of every request."""
    return [(c.round, c.prompt_tokens, c.cached_tokens) for c in rec.session_calls("masking")]


def recomputed_figure(recs: dict[str, Recording]) -> go.Figure:
    """Tokens recomputed so far, round by round, for the setups in the figure."""
    fig = go.Figure()
    for setup in IN_FIGURE:
        label, running, xs, ys, sent = SETUPS[setup][0], 0, [], [], []
        total_sent = 0
        for round_no, prompt, cached in round_rows(recs[setup]):
            running += prompt - cached
            total_sent += prompt
            xs.append(round_no), ys.append(running), sent.append(total_sent)
        fig.add_scatter(x=xs, y=ys, mode="lines+markers", name=label, customdata=sent,
                        hovertemplate=f"{label}<br>到第 %{{x}} 轮为止<br>累计重算 %{{y:,}} 个 token"
                                      "<br>累计发出 %{customdata:,} 个<extra></extra>")
    fig.update_layout(height=420, margin=dict(t=30, b=100),
                      xaxis=dict(title="轮", dtick=1), yaxis=dict(title="累计重算的 token", rangemode="tozero"),
                      legend=dict(orientation="h", y=-0.3, x=0))
    return fig
