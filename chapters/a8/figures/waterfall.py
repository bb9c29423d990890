"""A8·3's waterfall: what each chapter's fix saved on the same task.

Recording ``a8-3-waterfall-smollm2-llamacpp`` (chapters/a8/experiments/waterfall.py): the task of A8·3
under five designs (data/a8/waterfall/designs.yml), each on a fresh server: ``all-naive``, then
``plus-a4`` ... ``plus-a7``, each swapping one chapter's naive choice for its fix. Every design is one
session and its child. For each design: the tokens the server recomputed (``prompt_tokens`` minus
``cached_tokens``, every request: summary calls and the child's included), the server's own seconds
(``timings``: prompt + generation), and the same requests replayed under Anthropic's and OpenAI's cache
rules and priced (dated tables in ``data/prices/``). A bar of the waterfall is the difference between a
design and the one before it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chapters.a8.figures.whole import MODELS, sessions_of
from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill
from prefixlab.recording.format import Recording, load

NAME = "a8-3-waterfall-smollm2-llamacpp"
FIX_LABELS = {None: "全部朴素", "a4": "A4 布局", "a5": "A5 压缩", "a6": "A6 冻结记忆", "a7": "A7 全新→分叉"}
MEASURES = ("recomputed", "seconds", "usd_a", "usd_o")   # the four panels, in order
SAVED, MORE, TOTAL = "#2a9d8f", "#e76f51", "#6c757d"      # a step that saved, one that cost more, a whole bill


def recording() -> Recording:
    return load(RECORDINGS / NAME)


@dataclass(frozen=True)
class Design:
    id: str
    fix: str | None
    usage: bill.Usage            # the design's session and its child, as the server reported
    prompt_s: float
    gen_s: float
    usd: tuple[float, ...]       # one per model of MODELS, under that provider's cache rule
    summaries: int               # summary calls among the requests

    @property
    def recomputed(self) -> int:
        return self.usage.prompt - self.usage.cache_read

    @property
    def seconds(self) -> float:
        return self.prompt_s + self.gen_s

    @property
    def usd_a(self) -> float:
        return self.usd[0]

    @property
    def usd_o(self) -> float:
        return self.usd[1]

    @property
    def label(self) -> str:
        return FIX_LABELS[self.fix]


@lru_cache(maxsize=1)
def designs() -> tuple[Design, ...]:
    rec = recording()
    b = bill.bill(rec.path)
    out = []
    for info in (s for s in rec.manifest["sessions"] if s["kind"] == "main"):
        wanted = sessions_of(rec, info["id"])
        lines = [l for l in b.lines() if l.session in wanted]
        usage = sum((l.usage for l in lines if l.usage is not None), bill.Usage())
        usd = tuple(bill.price(b, m, sessions=wanted).total for m in MODELS)
        out.append(Design(info["id"], info["fix"], usage, sum(l.prompt_ms or 0 for l in lines) / 1000,
                          sum(l.predicted_ms or 0 for l in lines) / 1000, usd,
                          sum(1 for l in lines if l.kind == "compaction")))
    return tuple(out)


def steps(measure: str) -> list[tuple[str, float]]:
    """(the fix, what it changed ``measure`` by: negative = saved), one per design after the first."""
    ds = designs()
    return [(after.label, getattr(after, measure) - getattr(before, measure)) for before, after in zip(ds, ds[1:])]


PANELS = {"recomputed": ("重算的 token", "{:,.0f}"), "seconds": ("服务器秒数(prompt + 生成)", "{:,.1f}"),
          "usd_a": (f"{MODELS[0]},Anthropic 规则(美元)", "${:.4f}"), "usd_o": (f"{MODELS[1]},OpenAI 规则(美元)", "${:.4f}")}


def figure() -> go.Figure:
    """Four waterfalls: from the all-naive bill, one bar per chapter's fix, down to the fixed bill.

    Drawn as bars with a ``base`` (each step floats from the level before it), so the book's plotly
    bundle (the cartesian traces) draws it."""
    ds = designs()
    fig = make_subplots(rows=2, cols=2, subplot_titles=[PANELS[m][0] for m in MEASURES],
                        vertical_spacing=0.2, horizontal_spacing=0.1)
    for i, m in enumerate(MEASURES):
        fmt = PANELS[m][1]
        first, last = getattr(ds[0], m), getattr(ds[-1], m)
        labelled = steps(m)
        x = [ds[0].label] + [label for label, _ in labelled] + ["全部修好"]
        bases, heights, colors, text, level = [0], [first], [TOTAL], [fmt.format(first)], first
        for _, d in labelled:
            bases.append(level)
            heights.append(d)
            colors.append(MORE if d > 0 else SAVED)
            text.append(("+" if d > 0 else "−") + fmt.format(abs(d)))
            level += d
        bases.append(0)
        heights.append(last)
        colors.append(TOTAL)
        text.append(fmt.format(last))
        fig.add_bar(x=x, y=heights, base=bases, marker_color=colors, text=text, textposition="outside",
                    cliponaxis=False, showlegend=False, hovertemplate="%{x}:%{text}<extra></extra>",
                    row=i // 2 + 1, col=i % 2 + 1)
        top = max(first, *(getattr(d, m) for d in ds))
        fig.update_yaxes(range=[0, top * 1.25], row=i // 2 + 1, col=i % 2 + 1)
    fig.update_xaxes(tickangle=-30, tickfont=dict(size=10))
    fig.update_annotations(font_size=12)  # the panel titles
    fig.update_layout(height=620, margin=dict(t=40, b=20, l=10, r=10))
    return fig

def calls(session: str) -> list:
    """The recorded requests of one session (in order)."""
    return [c for c in recording().calls if c.session == session]


def facts() -> dict:
    """The measured numbers the page cites about the designs, each computed from the recording."""
    from collections import Counter

    from prefixlab.cache.rules import anthropic, openai

    rec, ds = recording(), designs()
    naive_follow = [c.cached_tokens for c in calls("all-naive")[1:] if c.kind == "model_call"]
    clock_read, clock_n = Counter(naive_follow).most_common(1)[0]
    summary_reads = {d: [c.cached_tokens for c in calls(d) if c.kind == "compaction"] for d in ("plus-a4", "plus-a5")}
    note_round = next(c.round for c in calls("plus-a5") if c.kind == "model_call"
                      and "kelvin_to_rankine multiplies" in c.request["messages"][0]["content"])
    after_note = {d: next(c for c in calls(d) if c.kind == "model_call" and c.round == note_round) for d in
                  ("plus-a5", "plus-a6")}
    fork, fresh = calls("plus-a7-child1"), calls("plus-a6-child1")
    back = {d: next(c for c in calls(d) if c.t > calls(f"{d}-child1")[-1].t) for d in ("plus-a6", "plus-a7")}
    first_s = [calls(d.id)[0] for d in ds]
    b = bill.bill(rec.path)
    first_ms = [next(l.prompt_ms for l in b.lines() if l.session == c.session and l.seq == c.seq) / 1000
                for c in first_s]
    return {
        "clock_read": clock_read, "clock_n": clock_n, "naive_follow": len(naive_follow),
        "naive_summaries": ds[0].summaries, "a5_summaries": ds[2].summaries,
        "summary_read_without_tools": max(summary_reads["plus-a4"]), "summary_read_with_tools": min(summary_reads["plus-a5"]),
        "note_round": note_round, "refresh_read": after_note["plus-a5"].cached_tokens,
        "frozen_read": after_note["plus-a6"].cached_tokens,
        "fork_first_prompt": fork[0].prompt_tokens, "fork_first_read": fork[0].cached_tokens,
        "fork_requests": len(fork), "fresh_requests": len(fresh),
        "fork_summaries": sum(1 for c in fork if c.kind == "compaction"),
        "fork_prompt": sum(c.prompt_tokens for c in fork), "fresh_prompt": sum(c.prompt_tokens for c in fresh),
        "budget": rec.manifest["compaction"]["window"] - rec.manifest["compaction"]["reserve"],
        "back_read_fresh": back["plus-a6"].cached_tokens, "back_read_fork": back["plus-a7"].cached_tokens,
        "first_prompt": first_s[1].prompt_tokens,  # the same first request in every design with the date line
        "first_s_min": min(first_ms[1:]), "first_s_max": max(first_ms[1:]),
        "longest_design_s": max(max(c.t for c in rec.calls if c.session in sessions_of(rec, d.id))
                                - min(c.t for c in rec.calls if c.session in sessions_of(rec, d.id)) for d in ds),
        "anthropic_ttl": anthropic.AnthropicConfig().automatic,
        "openai_retention": openai.default_retention(MODELS[1]),
        "openai_idle_min": openai.RETENTION[openai.default_retention(MODELS[1])][0] / 60,
    }


def note():
    """The 口径 note of the waterfall: one recording, five designs, two ways of counting."""
    from prefixlab.presenting.book import provenance_note

    rec = recording()
    return provenance_note(
        recording=f"{NAME}(data/recordings/;脚本策略,五种设计各在一台刚启动的服务器上)",
        model=rec.provenance["model"]["name"],
        server="课程自带的 llama-server(-c 4096 -np 1,启动参数在 manifest 的 provenance.server.flags)",
        note=("重算的 token 和秒数是服务器自己在每个回答里报告的 usage 和 timings;美元是计算器按各家的缓存规则"
              "从空缓存重放同样的请求、再按 data/prices/ 的带日期价目标价,是折算,不是账单"),
        date=rec.manifest["created"][:10])
