"""A8·2's numbers and figure: the ledger of a session tree next to a tally of the context now.

A tally of the context now adds up the usage of the calls whose answers the agent still holds at
the session's leaf (an agent's in-memory session statistics). The ledger adds up every request the
session file holds, and every child's file: ``prefixlab.presenting.bill.context_vs_ledger`` splits
it into the parts the tally sees and misses.

Sessions shown: the compacting ones of the shipped recordings, the session tree with forks, and
every shipped session whose file has child sessions (found, not listed: a recording with children
plugs in by being shipped).
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill
from prefixlab.presenting.bill import PARTS, Usage
from prefixlab.recording.format import Recording, find_recordings, load

# (recording, session, label): the sessions the lesson draws; the exercise's are not among them
SHOWN = [
    ("a5-1-triggers-smollm2-llamacpp", "every-n", "每 N 条消息压缩"),
    ("a5-1-triggers-smollm2-llamacpp", "reserve", "窗口减预留时压缩"),
    ("a5-4-summary-call-smollm2-llamacpp", "same-prefix", "压缩,摘要请求沿用前缀"),
    ("t13-forks-smollm2-llamacpp", "day1", "第一天,连同它的 9 个 fork"),
]
LABELS = {"context": "还在上下文里", "compacted": "被压缩掉的轮次", "summary": "摘要请求",
          "branch": "别的分支", "child": "子会话"}
COLORS = {"context": "#4c72b0", "compacted": "#dd8452", "summary": "#8172b3", "branch": "#999999", "child": "#4c9f70"}


@dataclass(frozen=True)
class Split:
    recording: str
    session: str
    label: str
    parts: dict          # part -> Usage

    @property
    def ledger(self) -> Usage:
        return sum(self.parts.values(), Usage())

    @property
    def missed(self) -> int:
        """Prompt tokens the tally of the context does not see."""
        return self.ledger.prompt - self.parts["context"].prompt

    @property
    def missed_share(self) -> float:
        return self.missed / self.ledger.prompt


def split(rec: Recording, session: str, label: str = "") -> Split:
    info = rec.session_info(session)
    return Split(rec.path.name, session, label or session,
                 bill.context_vs_ledger(rec.path / info["file"], info["leaf"]))


def with_children() -> list[tuple[str, str, str]]:
    """Every shipped main session whose session file has child sessions; one per experiment and session
    (an experiment recorded on several server setups sends the same requests on each)."""
    out, seen = [], set()
    for path in find_recordings(RECORDINGS):
        rec = load(path)
        for info in rec.manifest["sessions"]:
            key = (rec.manifest["experiment"], info["id"])
            if rec.manifest["experiment"].startswith("A8"):
                continue  # this chapter's own task is A8·3's subject, not A8·2's evidence
            if info.get("kind") == "main" and key not in seen and bill.children_folder(path / info["file"]).is_dir():
                seen.add(key)
                out.append((path.name, info["id"], f"{rec.manifest['experiment']} {info['id']}(有子会话)"))
    return out


def splits() -> list[Split]:
    recs: dict[str, Recording] = {}
    out = []
    for name, session, label in SHOWN + with_children():
        rec = recs.setdefault(name, load(RECORDINGS / name))
        out.append(split(rec, session, label))
    return out


def figure(rows: list[Split]) -> go.Figure:
    """One bar per session: its ledger's prompt tokens, split by what a tally of the context sees."""
    ys = [r.label for r in rows]
    fig = go.Figure()
    for part in PARTS:
        fig.add_bar(y=ys, x=[r.parts[part].prompt for r in rows], name=LABELS[part], orientation="h",
                    marker_color=COLORS[part], customdata=[r.parts[part].calls for r in rows],
                    hovertemplate="%{y}<br>" + LABELS[part] + ":%{x:,} 个输入 token,%{customdata} 个请求<extra></extra>")
    fig.update_layout(barmode="stack", height=160 + 60 * len(rows), margin=dict(t=30, b=40, l=10),
                      xaxis=dict(title="输入 token(prompt_tokens,整棵会话树)"), yaxis=dict(autorange="reversed"),
                      legend=dict(orientation="h", y=1.12, x=0))
    return fig
