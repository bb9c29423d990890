"""A8·3's numbers: the whole bill of one complete task (skills, memory, a compaction, a child).

Recording ``a8-3-whole-task-smollm2-llamacpp`` (chapters/a8/experiments/whole_task.py): session ``whole``
(the task to its end) and its child ``whole-child1``; session ``budget`` (the same task under a token
budget) and its child, if it got that far.
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill
from prefixlab.presenting.bill import PARTS, Usage
from prefixlab.recording.format import Recording, load

NAME = "a8-3-whole-task-smollm2-llamacpp"
MODELS = ("claude-sonnet-5-5", "gpt-5-5")   # one model of each provider, priced under its own cache rule


def recording() -> Recording:
    return load(RECORDINGS / NAME)


def sessions_of(rec: Recording, variant: str) -> list[str]:
    """The variant's main session and its children (by the manifest)."""
    return [s["id"] for s in rec.manifest["sessions"] if s["id"] == variant or
            (s.get("child_of") or {}).get("session") == variant]


@dataclass(frozen=True)
class Whole:
    rec: Recording
    b: bill.Bill
    parts: dict            # the ``whole`` session's ledger split (context, compacted, summary, branch, child)

    @property
    def usage(self) -> Usage:
        return sum(self.parts.values(), Usage())

    def seconds(self, variant: str = "whole") -> tuple[float, float]:
        lines = [l for l in self.b.lines() if l.session in sessions_of(self.rec, variant)]
        return (sum(l.prompt_ms or 0 for l in lines) / 1000, sum(l.predicted_ms or 0 for l in lines) / 1000)


def whole() -> Whole:
    rec = recording()
    info = rec.session_info("whole")
    return Whole(rec, bill.bill(rec.path), bill.context_vs_ledger(rec.path / info["file"], info["leaf"]))


def projections(w: Whole, models=MODELS) -> list:
    """The ``whole`` variant's requests replayed under each model's own cache rule, priced (dated prices)."""
    return [bill.price(w.b, m, sessions=sessions_of(w.rec, "whole")) for m in models]


def parts_figure(w: Whole) -> go.Figure:
    from chapters.a8.figures.ledger import COLORS, LABELS

    fig = go.Figure()
    for part in PARTS:
        u = w.parts[part]
        fig.add_bar(y=["整单"], x=[u.prompt], name=LABELS[part], orientation="h", marker_color=COLORS[part],
                    customdata=[u.calls], hovertemplate=LABELS[part] + ":%{x:,} 个输入 token,%{customdata} 个请求<extra></extra>")
    fig.update_layout(barmode="stack", height=220, margin=dict(t=30, b=40, l=10),
                      xaxis=dict(title="输入 token(prompt_tokens)"), legend=dict(orientation="h", y=1.35, x=0))
    return fig
