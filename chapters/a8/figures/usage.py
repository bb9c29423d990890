"""A8·1's numbers and figure: every shipped recording booked OpenAI style and Anthropic style.

The server (llama-server) answers OpenAI style: ``prompt_tokens`` counts every input token, the
cached ones included, and ``prompt_tokens_details.cached_tokens`` says how many of them were read
from the cache. Anthropic's ``input_tokens`` counts only the tokens computed anew. The naive sum
reads one convention with the other's meaning: ``prompt_tokens`` taken as Anthropic's input and
the cache reads added on top, so every cached token is counted twice.
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill
from prefixlab.presenting.bill import Usage
from prefixlab.recording.format import find_recordings

HEADLINE = "a1-loop-smollm2-llamacpp"   # the first agent loop of the course (A1·2's run)
SUFFIX = "-smollm2-llamacpp"


@dataclass(frozen=True)
class Booked:
    name: str      # the recording's directory name
    usage: Usage   # its whole bill

    @property
    def short(self) -> str:
        return self.name.removesuffix(SUFFIX)

    @property
    def counted_twice(self) -> int:
        return self.usage.naive_input() - self.usage.prompt

    @property
    def overstatement(self) -> float:
        """How much the naive sum adds, as a share of the true input (0.5 = 50 % too much)."""
        return self.counted_twice / self.usage.prompt


def booked_all() -> list[Booked]:
    """Every shipped recording's bill, in name order."""
    return [Booked(p.name, bill.bill(p).total) for p in find_recordings(RECORDINGS)]


def headline() -> Booked:
    return Booked(HEADLINE, bill.bill(RECORDINGS / HEADLINE).total)


def all_together(rows: list[Booked]) -> Usage:
    return sum((r.usage for r in rows), Usage())


def both_ways(u: Usage) -> list[list]:
    """The same usage as two APIs report it: one row per quantity, (name, value) per convention."""
    o, a = u.openai(), u.anthropic()
    return [
        ["全部输入", f"prompt_tokens = {o['prompt_tokens']:,}",
         f"input_tokens + cache_read_input_tokens = {a['input_tokens'] + a['cache_read_input_tokens']:,}"],
        ["从缓存读取", f"prompt_tokens_details.cached_tokens = {o['prompt_tokens_details']['cached_tokens']:,}",
         f"cache_read_input_tokens = {a['cache_read_input_tokens']:,}"],
        ["重算", f"prompt_tokens − cached_tokens = {o['prompt_tokens'] - o['prompt_tokens_details']['cached_tokens']:,}",
         f"input_tokens = {a['input_tokens']:,}"],
        ["写入缓存", "(不单列)", f"cache_creation_input_tokens = {a['cache_creation_input_tokens']:,}"],
        ["输出", f"completion_tokens = {o['completion_tokens']:,}", f"output_tokens = {a['output_tokens']:,}"],
    ]


def figure(rows: list[Booked]) -> go.Figure:
    """Per recording: the input tokens as booked (computed + read) and what the naive sum adds on top."""
    xs = [r.short for r in rows]
    fig = go.Figure()
    fig.add_bar(x=xs, y=[r.usage.input for r in rows], name="重算(input_tokens)", marker_color="#d1495b",
                hovertemplate="%{x}<br>重算 %{y:,}<extra></extra>")
    fig.add_bar(x=xs, y=[r.usage.cache_read for r in rows], name="从缓存读取(计一次)", marker_color="#4c9f70",
                hovertemplate="%{x}<br>读取 %{y:,}<extra></extra>")
    fig.add_bar(x=xs, y=[r.counted_twice for r in rows], name="朴素相加多算的一遍", marker_color="#bbbbbb",
                marker_pattern_shape="/", customdata=[round(100 * r.overstatement) for r in rows],
                hovertemplate="%{x}<br>多算 %{y:,}(真实输入的 %{customdata}%)<extra></extra>")
    fig.update_layout(barmode="stack", height=480, margin=dict(t=30, b=140),
                      xaxis=dict(tickangle=-45), yaxis=dict(title="输入 token(整份录制)"),
                      legend=dict(orientation="h", y=1.08, x=0))
    return fig
