"""Lesson A6·1's loader explorer: which AGENTS.md files miniagent loads, in what order, where the cap cuts.

    from chapters.a6.figures import agents_md_explorer as ex
    explorer = ex.explore()          # data/a6/loader-tree, every working directory, every cap in CAPS
    print(ex.tree_text(explorer))    # the tree, with the size of every AGENTS.md
    ex.loader_figure(explorer)       # one bar per working directory; a slider moves the cap

Everything comes from running miniagent's own ``read_agents_md`` on a copy of the fixture tree
(``data/a6/loader-tree``, with a ``.git`` marker at its top so the copy is the repository root):
the segment of each file is found in the text the agent would put in its prompt, and for every
cap the capped text is checked to be that text cut where the explorer says, plus the marker.
The figure is interactive without a kernel: the slider switches precomputed bar lengths.
"""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import plotly.graph_objects as go

from miniagent.agents_md import AGENTS_MD, AGENTS_MD_CAP, agents_md_files, read_agents_md

from chapters.a6.paths import LOADER_TREE

CAPS = (256, 512, 768, 1024, 1536, 2048, AGENTS_MD_CAP)  # bytes; the last one is miniagent's default
FILE_COLORS = ["#2563eb", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04"]  # one per AGENTS.md
CUT_COLOR, MARKER_COLOR = "#d1d5db", "#dc2626"


@dataclass(frozen=True)
class Segment:
    """One loaded file's part of the AGENTS.md text (its label line included), in bytes."""

    path: str    # relative to the repository root, e.g. "services/api/AGENTS.md"
    order: int   # 1 = loaded first (the root's)
    start: int
    end: int

    def kept(self, cap: int) -> int:
        return max(0, min(self.end, cap) - self.start)


@dataclass(frozen=True)
class Row:
    """What miniagent reads from one working directory."""

    cwd: str                      # "." for the root
    segments: tuple[Segment, ...]
    total: int                    # bytes of the text with no cap
    marker: dict                  # cap -> bytes of the truncation marker (0 when nothing is cut)

    def cut(self, cap: int) -> int:
        return max(0, self.total - cap)


@dataclass(frozen=True)
class Explorer:
    files: tuple[tuple[str, int], ...]  # every AGENTS.md of the tree and its size in bytes
    rows: tuple[Row, ...]
    caps: tuple[int, ...]


def working_directories(root: Path) -> list[str]:
    """Every directory of the tree (the root as "."), parents before children."""
    dirs = [p for p in sorted(root.rglob("*")) if p.is_dir() and ".git" not in p.parts]
    return ["."] + [d.relative_to(root).as_posix() for d in dirs]


def explore(tree: Path = LOADER_TREE, caps: tuple[int, ...] = CAPS) -> Explorer:
    """Run ``read_agents_md`` from every directory of a copy of ``tree``, for every cap."""
    with tempfile.TemporaryDirectory(prefix="agents-md-tree-") as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(tree, root)
        (root / ".git").mkdir()
        files = tuple((p.relative_to(root).as_posix(), p.stat().st_size) for p in sorted(root.rglob(AGENTS_MD)))
        rows = tuple(_row(root, cwd, caps) for cwd in working_directories(root))
    return Explorer(files, rows, tuple(caps))


def _row(root: Path, cwd: str, caps: tuple[int, ...]) -> Row:
    workspace = root / cwd
    full = read_agents_md(workspace, cap=10**9).encode("utf-8")
    _, paths = agents_md_files(workspace)
    names = [p.relative_to(root).as_posix() for p in paths if p.read_text(encoding="utf-8").strip()]
    if len(names) == 1:
        starts = [0]
    else:  # each file starts with the label line miniagent writes for it
        starts = [full.index(f"--- {name} ---".encode("utf-8")) for name in names]
    ends = starts[1:] + [len(full)]
    segments = tuple(Segment(name, i + 1, s, e) for i, (name, s, e) in enumerate(zip(names, starts, ends)))
    marker = {}
    for cap in caps:
        capped = read_agents_md(workspace, cap=cap).encode("utf-8")
        if len(full) <= cap:
            assert capped == full
            marker[cap] = 0
            continue
        kept = len(full[:cap].decode("utf-8", errors="ignore").encode("utf-8"))  # never half a character
        assert capped.startswith(full[:kept]), f"{cwd}: the capped text is not the text cut at {kept} bytes"
        marker[cap] = len(capped) - kept
    return Row(cwd, segments, len(full), marker)


def tree_text(explorer: Explorer) -> str:
    """The AGENTS.md files of the tree, with their sizes, indented by depth."""
    lines = ["仓库根目录(有 .git)"]
    for path, size in explorer.files:
        depth = path.count("/")
        lines.append(f"{'    ' * depth}{path}  {size:,} 字节")
    return "\n".join(lines)


def loads_text(explorer: Explorer, cap: int = AGENTS_MD_CAP) -> str:
    """For each working directory: the files miniagent loads, in order, and what the cap cuts."""
    lines = []
    for row in explorer.rows:
        files = " → ".join(s.path for s in row.segments) or "(无)"
        cut = f",截掉 {row.cut(cap):,} 字节" if row.cut(cap) else ""
        lines.append(f"{row.cwd:<24} {row.total:>6,} 字节  {files}{cut}")
    return "\n".join(lines)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _traces_for(explorer: Explorer, cap: int) -> list[dict]:
    """x (lengths), base (starts) and hover text of every trace, for one cap."""
    rows = explorer.rows
    paths = [p for p, _ in explorer.files]
    out = []
    for path in paths:
        kept_x, kept_base, cut_x, cut_base, hover_kept, hover_cut = [], [], [], [], [], []
        for row in rows:
            seg = next((s for s in row.segments if s.path == path), None)
            if seg is None:
                kept_x.append(0), kept_base.append(0), cut_x.append(0), cut_base.append(0)
                hover_kept.append(""), hover_cut.append("")
                continue
            k = seg.kept(cap)
            kept_x.append(k), kept_base.append(seg.start)
            cut_x.append(seg.end - seg.start - k), cut_base.append(seg.start + k)
            head = f"工作目录 {_esc(row.cwd)}<br>第 {seg.order} 个加载:{_esc(path)}<br>字节 {seg.start:,}–{seg.end:,}"
            hover_kept.append(f"{head}<br>进入 prompt:{k:,} 字节")
            hover_cut.append(f"{head}<br><b>被上限截掉:{seg.end - seg.start - k:,} 字节</b>")
        out.append({"x": kept_x, "base": kept_base, "hovertext": hover_kept})
        out.append({"x": cut_x, "base": cut_base, "hovertext": hover_cut})
    marker_x = [row.marker[cap] for row in rows]
    out.append({"x": marker_x, "base": [min(cap, row.total) for row in rows],
                "hovertext": [f"工作目录 {_esc(row.cwd)}<br>截断标记:{m:,} 字节<br>(共截掉 {row.cut(cap):,} 字节)"
                              if m else "" for row, m in zip(rows, marker_x)]})
    return out


def loader_figure(explorer: Explorer, start_cap: int = AGENTS_MD_CAP) -> go.Figure:
    """One horizontal bar per working directory: its AGENTS.md files in load order, in bytes.

    Grey is what the cap cuts, red the marker miniagent writes instead. Each cap has its own set of
    traces; the slider (largest cap first: drag right to shrink it) shows one set at a time.
    """
    rows = [row.cwd for row in explorer.rows]
    caps = sorted(explorer.caps, reverse=True)
    fig = go.Figure()
    groups = []
    for cap in caps:
        first_trace = len(fig.data)
        data = iter(_traces_for(explorer, cap))
        for i, (path, _) in enumerate(explorer.files):
            color = FILE_COLORS[i % len(FILE_COLORS)]
            for part, fill in (("kept", color), ("cut", CUT_COLOR)):
                values = next(data)
                fig.add_trace(go.Bar(
                    y=rows, orientation="h", name=path if part == "kept" else "被截掉的部分",
                    legendgroup=path if part == "kept" else "cut", visible=cap == start_cap,
                    showlegend=part == "kept" or i == 0, hoverinfo="text",
                    marker=dict(color=fill, line=dict(color="white", width=1)), **values))
        fig.add_trace(go.Bar(y=rows, orientation="h", name="截断标记", legendgroup="marker", width=0.4,
                             marker=dict(color=MARKER_COLOR), hoverinfo="text", visible=cap == start_cap,
                             **next(data)))
        groups.append(range(first_trace, len(fig.data)))
    longest = max(row.total for row in explorer.rows)
    steps = []
    for cap, group in zip(caps, groups):
        line = min(cap, longest * 1.05)
        title = (f"上限 {cap:,} 字节" + ("(miniagent 的默认值,和 Codex 相同;这些文件都放得下)"
                                        if cap == AGENTS_MD_CAP else ""))
        steps.append(dict(label=f"{cap:,}", method="update", args=[
            {"visible": [i in group for i in range(len(fig.data))]},
            {"shapes": [dict(type="line", x0=line, x1=line, y0=-0.5, y1=len(rows) - 0.5, yref="y",
                             line=dict(color=MARKER_COLOR, width=2, dash="dash"))],
             "title.text": title}]))
    first = caps.index(start_cap)
    fig.update_layout(
        barmode="overlay", height=230 + 40 * len(rows), margin=dict(l=10, r=10, t=110, b=20),
        title=dict(text=steps[first]["args"][1]["title.text"], y=0.98, yanchor="top"),
        shapes=steps[first]["args"][1]["shapes"],
        xaxis=dict(title="AGENTS.md 文本的字节数(按加载顺序从左到右)", range=[0, longest * 1.08], tickformat=","),
        yaxis=dict(title="工作目录", autorange="reversed", type="category"),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0, font=dict(size=11)),
        sliders=[dict(active=first, currentvalue=dict(prefix="字节上限(往右越小):"), pad=dict(t=50),
                      steps=steps)])
    return fig
