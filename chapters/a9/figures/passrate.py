"""A9·2: how sure the shipped evaluation's pass rates are.

Every number comes from ``results.jsonl`` of the chapter's evaluation (``chapters.a9.paths.EVALUATION``),
through ``prefixlab.eval.stats``: pass rates with 95 % Wilson intervals, pass@k, the spread of each task's
pass rate across seeds, and what a single sweep (each task run once, as A7·4 and A8·3 did) would have said.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import plotly.graph_objects as go

from prefixlab.eval import rows, stats
from prefixlab.eval.rows import Run
from prefixlab.presenting.bill import bill_session

from chapters.a9.paths import EVALUATION

ORACLE = "oracle"
LABELS = {"text": "文字调用", "constrained": "约束调用", "oracle": "oracle(脚本)"}
COLORS = {"text": "#2563eb", "constrained": "#d97706", "oracle": "#6b7280"}
FAILURE_ZH = {"pass": "通过", "check failed": "检查没过", "timeout": "超时", "check crashed": "检查崩溃",
              "workspace damaged": "工作区被改坏", "stopped": "被上限停下"}


def label(design: str) -> str:
    return LABELS.get(design, design)


@lru_cache(maxsize=4)
def runs(folder: Path = EVALUATION) -> tuple[Run, ...]:
    return tuple(rows.load(folder))


def designs(folder: Path = EVALUATION) -> list[str]:
    """The designs in the results: the live ones in the harness's order, the oracle last."""
    found = list(dict.fromkeys(r.design for r in runs(folder)))
    order = [d for d in ("text", "constrained") if d in found] + [d for d in found if d not in LABELS]
    return order + ([ORACLE] if ORACLE in found else [])


def live_designs(folder: Path = EVALUATION) -> list[str]:
    return [d for d in designs(folder) if d != ORACLE]


def of(design: str, folder: Path = EVALUATION) -> list[Run]:
    return [r for r in runs(folder) if r.design == design]


def tasks(folder: Path = EVALUATION) -> list[str]:
    return sorted({r.task for r in runs(folder)})


def seeds(design: str, folder: Path = EVALUATION) -> list[int]:
    return sorted({r.seed for r in of(design, folder)})


def summary(design: str, folder: Path = EVALUATION) -> stats.Summary:
    return stats.summary(of(design, folder))


def table_rows(folder: Path = EVALUATION) -> list[list]:
    """One row per design: runs, tasks × seeds, passes, pass rate, its 95 % interval."""
    out = []
    for d in designs(folder):
        s, mine = summary(d, folder), of(d, folder)
        out.append([label(d), s.runs, f"{len({r.task for r in mine})} × {len({r.seed for r in mine})}", s.passed,
                    f"{100 * s.rate:.0f}%", s.interval.pct()])
    return out


def failures(design: str, folder: Path = EVALUATION) -> dict[str, int]:
    """How the design's runs ended: pass, check failed, timeout, ... (counts, in FAILURE_ZH's order)."""
    counts: dict[str, int] = {}
    for r in of(design, folder):
        counts[r.failure] = counts.get(r.failure, 0) + 1
    return {k: counts[k] for k in FAILURE_ZH if k in counts}


def stop_reasons(design: str, folder: Path = EVALUATION) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in of(design, folder):
        counts[r.stop_reason or "-"] = counts.get(r.stop_reason or "-", 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def interval_figure(folder: Path = EVALUATION) -> go.Figure:
    """Each design's pass rate, with its 95 % Wilson interval as the error bar."""
    fig = go.Figure()
    for d in designs(folder):
        s = summary(d, folder)
        ci = s.interval
        fig.add_trace(go.Scatter(
            x=[100 * s.rate], y=[label(d)], mode="markers", name=label(d), marker=dict(size=12, color=COLORS.get(d)),
            error_x=dict(type="data", symmetric=False, array=[100 * (ci.high - s.rate)],
                         arrayminus=[100 * (s.rate - ci.low)], thickness=2, width=8),
            hovertemplate=f"{label(d)}<br>{s.passed} / {s.runs} 次通过<br>通过率 %{{x:.0f}}%<br>"
                          f"95% 区间 {ci.pct()}<extra></extra>"))
    fig.update_layout(title="通过率和它的 95% 区间(Wilson)", xaxis=dict(title="通过率(%)", range=[-2, 102]),
                      yaxis=dict(autorange="reversed"), showlegend=False, height=120 + 60 * len(designs(folder)),
                      margin=dict(l=10, r=10, t=40, b=40), template="plotly_white")
    return fig


def task_rates(design: str, folder: Path = EVALUATION) -> dict[str, stats.Summary]:
    return stats.by_task(of(design, folder))


def task_figure(folder: Path = EVALUATION) -> go.Figure:
    """Each task's pass rate across its seeds, per live design, with the interval of that task alone."""
    fig = go.Figure()
    names = tasks(folder)
    for d in live_designs(folder):
        per = task_rates(d, folder)
        y = [100 * per[t].rate if t in per else None for t in names]
        hi = [100 * (per[t].interval.high - per[t].rate) if t in per else None for t in names]
        lo = [100 * (per[t].rate - per[t].interval.low) if t in per else None for t in names]
        text = [f"{per[t].passed} / {per[t].runs}" if t in per else "" for t in names]
        fig.add_trace(go.Bar(x=names, y=y, name=label(d), marker_color=COLORS.get(d), text=text,
                             error_y=dict(type="data", symmetric=False, array=hi, arrayminus=lo, thickness=1.2),
                             hovertemplate="%{x}<br>%{text} 次通过<br>%{y:.0f}%<extra>" + label(d) + "</extra>"))
    fig.update_layout(title="每个任务跨种子的通过率(误差线:只看这个任务的 95% 区间)", barmode="group",
                      yaxis=dict(title="通过率(%)", range=[0, 105]), xaxis=dict(title="任务", tickangle=-30),
                      height=420, legend=dict(orientation="h", y=1.08, x=0), margin=dict(l=10, r=10, t=60, b=110),
                      template="plotly_white")
    return fig


def pass_at_k(design: str, folder: Path = EVALUATION) -> dict[int, float]:
    """pass@k averaged over the tasks, k = 1 … the fewest runs any task has."""
    mine = of(design, folder)
    n = min(s.runs for s in stats.by_task(mine).values())
    return {k: stats.mean_pass_at_k(mine, k) for k in range(1, n + 1)}


def pass_at_k_figure(folder: Path = EVALUATION) -> go.Figure:
    fig = go.Figure()
    for d in live_designs(folder):
        curve = pass_at_k(d, folder)
        fig.add_trace(go.Scatter(x=list(curve), y=[100 * v for v in curve.values()], mode="lines+markers",
                                 name=label(d), line=dict(color=COLORS.get(d)),
                                 hovertemplate="k = %{x}<br>pass@k %{y:.1f}%<extra>" + label(d) + "</extra>"))
    fig.update_layout(title="pass@k:k 次里至少一次通过的概率(各任务平均)", xaxis=dict(title="k(次)", dtick=1),
                      yaxis=dict(title="pass@k(%)", range=[0, 105]), height=360,
                      legend=dict(orientation="h", y=1.1, x=0), template="plotly_white")
    return fig


def seed_rates(design: str, folder: Path = EVALUATION) -> dict[int, stats.Summary]:
    """One sweep per seed: the whole task set's pass rate when each task runs once, with that seed."""
    return stats.by_seed(of(design, folder))


def complete_seeds(design: str, folder: Path = EVALUATION) -> list[int]:
    """The seeds with a run of every task (a batch cut short leaves its last seed partial)."""
    everything = set(tasks(folder))
    return [s for s in seeds(design, folder) if {r.task for r in of(design, folder) if r.seed == s} == everything]


def sweep_tasks(a: str, b: str, seed: int, folder: Path = EVALUATION) -> list[str]:
    """The tasks both designs ran with ``seed`` (all of them, unless a batch stopped inside that seed)."""
    ta = {r.task for r in of(a, folder) if r.seed == seed}
    tb = {r.task for r in of(b, folder) if r.seed == seed}
    return sorted(ta & tb)


def sweep(design: str, seed: int, names: list[str], folder: Path = EVALUATION) -> stats.Summary:
    """One sweep: ``design``'s runs with ``seed`` on the tasks ``names`` (each task once)."""
    return stats.summary(r for r in of(design, folder) if r.seed == seed and r.task in names)


def sweep_seeds(a: str, b: str, folder: Path = EVALUATION) -> list[int]:
    """The seeds on which both designs ran at least one common task."""
    return [s for s in sorted(set(seeds(a, folder)) & set(seeds(b, folder))) if sweep_tasks(a, b, s, folder)]


def single_sweeps(a: str, b: str, folder: Path = EVALUATION) -> dict[str, int]:
    """Seed by seed, one sweep of each design over the tasks both ran with that seed (each task once):
    how often A passes more of them, fewer, or as many."""
    out = {"ahead": 0, "behind": 0, "level": 0}
    for s in sweep_seeds(a, b, folder):
        names = sweep_tasks(a, b, s, folder)
        diff = sweep(a, s, names, folder).passed - sweep(b, s, names, folder).passed
        out["ahead" if diff > 0 else "behind" if diff < 0 else "level"] += 1
    return out


def comparison(a: str, b: str, folder: Path = EVALUATION) -> stats.Comparison:
    return stats.compare(of(a, folder), of(b, folder))


# -- where a run fails: its transcript ---------------------------------------------------------------

def transcript(run: Run, folder: Path = EVALUATION, width: int = 160) -> list[str]:
    """The run's assistant turns, one short line each: a tool call (name and arguments) or the answer's text."""
    from miniagent.session import Session

    session = Session.open(folder / run.session)
    lines = []
    for m in session.messages():
        if m.get("role") != "assistant":
            continue
        calls = m.get("tool_calls") or []
        if calls:
            for c in calls:
                f = c.get("function", {})
                lines.append(f"调用 {f.get('name')}({(f.get('arguments') or '')[:width]})")
        else:
            text = " ".join((m.get("content") or "").split())
            lines.append(f"回答:{text[:width]}" + ("…" if len(text) > width else ""))
    return lines


def example(design: str, failure: str, folder: Path = EVALUATION) -> Run | None:
    """The first run (task, then seed order) of ``design`` that ended as ``failure``."""
    found = sorted((r for r in of(design, folder) if r.failure == failure), key=lambda r: (r.task, r.seed))
    return found[0] if found else None


def billed_prompt_tokens(run: Run, folder: Path = EVALUATION) -> int:
    """The run's input tokens as its session file's bill adds them up (a check on the row)."""
    if run.requests == 0:
        return 0
    return bill_session(folder / run.session).total.prompt


# -- an earlier chapter's small live check, for scale ---------------------------------------------------

REVIEW_LIVE = "a7-4-review-live-qwen2.5-coder-0.5b-llamacpp"   # A7·4's check: two ways of reviewing, a few runs each


def review_live_runs() -> int:
    """How many runs A7·4's live check made of each way (its manifest's ``self`` sessions)."""
    import json

    from prefixlab.paths import RECORDINGS

    manifest = json.loads((RECORDINGS / REVIEW_LIVE / "manifest.json").read_text(encoding="utf-8"))
    return sum(1 for s in manifest["sessions"] if s.get("variant") == "self")
