"""Lesson A6·4's figures: the session tree itself, and branch switching under three server setups.

Both are plotly figures whose buttons switch precomputed traces in the browser, so they stay
interactive in the static book (no kernel). Every value comes from a recording:

    tree = session_tree(rec, "day1.jsonl")     # one session file: its entries, leaves, requests
    tree_figure(tree)                          # pick a leaf: its root-to-leaf path, requests, hits
    data = switch_data({"一个槽位": rec_a, ...})  # every request of each setup, measured and predicted
    switch_figure(data)                        # one panel per setup, bars = measured hit
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from prefixlab.cache import calculator
from prefixlab.recording.format import Recording

TYPE_STYLE = {  # entry type (or message role) -> (label, colour, symbol)
    "system": ("system prompt", "#6b7280", "square"),
    "user": ("user 消息", "#2563eb", "circle"),
    "assistant": ("assistant 消息", "#16a34a", "circle"),
    "tool": ("工具结果", "#a3a3a3", "circle"),
    "model_call": ("一次请求(model_call)", "#111827", "diamond"),
    "compaction": ("压缩", "#db2777", "star"),
    "other": ("其他条目", "#d1d5db", "circle-open"),
}
PATH_COLOR = "#f59e0b"


def _esc(text: str) -> str:
    return html.escape(text).replace("\n", "⏎")


def _short(text: str, width: int = 48) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def kind_of(entry: dict) -> str:
    if entry["type"] == "message":
        return entry["message"].get("role", "other")
    return entry["type"] if entry["type"] in TYPE_STYLE else "other"


def entry_text(entry: dict) -> str:
    """A one-line description of an entry, for hovers and path listings."""
    kind = kind_of(entry)
    if entry["type"] == "message":
        message = entry["message"]
        text = message.get("content") or ""
        calls = message.get("tool_calls") or []
        if calls:
            text = (text + " " if text else "") + "→ " + ", ".join(c["function"]["name"] for c in calls)
        return f"{kind}: {_short(text)}"
    if entry["type"] == "model_call":
        return f"model_call 第 {entry.get('round', '?')} 轮"
    if entry["type"] == "compaction":
        return f"compaction: {_short(entry.get('message', {}).get('content', '') if isinstance(entry.get('message'), dict) else '')}"
    return entry["type"]


@dataclass
class Request:
    """One recorded request on a leaf's path, with the server's hit and the calculator's."""

    seq: int
    session: str
    round: int
    entry_id: str
    prompt_tokens: int
    measured: int | None
    predicted: int
    messages: int
    last_user: str
    source: str  # where the hit came from, in words


@dataclass
class Leaf:
    session: str          # the recording's session id whose path ends here
    leaf: str             # entry id
    path: list[str]       # entry ids, root first
    forked_at: str | None  # entry id this session branched off from, None for a trunk
    requests: list[Request] = field(default_factory=list)  # this session's own requests, in order

    @property
    def first(self) -> Request | None:
        return self.requests[0] if self.requests else None


@dataclass
class Tree:
    file: str
    entries: dict[str, dict]       # id -> entry, file order
    children: dict[str, list[str]]
    x: dict[str, int]              # depth along the path
    y: dict[str, int]              # lane
    leaves: list[Leaf]

    def branch_points(self) -> list[str]:
        return [i for i, c in self.children.items() if len(c) > 1]


def hit_source(recording: Recording, row) -> str:
    """Where a request's hit came from: which earlier request (and session) left it in the cache."""
    if not row.read:
        return "什么也没读到"
    match = (row.matched_entry or "").split("<- ")
    origin = match[-1] if len(match) > 1 else row.matched_entry or ""
    if origin.startswith("request "):
        number = origin.split()[1]
        try:
            call = recording.calls[calculator.epochs(recording)[row.epoch][int(number)]]
            return f"{call.session} 第 {call.round} 轮留下的 prompt"
        except (ValueError, IndexError, KeyError):
            pass
    return origin or "缓存"


def _requests(recording: Recording, session: str, rows: dict[int, object]) -> list[Request]:
    out = []
    for call in recording.session_calls(session):
        row = rows[call.seq]
        users = [m for m in call.request["messages"] if m["role"] == "user"]
        out.append(Request(call.seq, session, call.round, call.entry_id, call.prompt_tokens, call.cached_tokens,
                           row.read, len(call.request["messages"]), (users[-1]["content"] if users else ""),
                           hit_source(recording, row)))
    return out


def session_tree(recording: Recording, file: str) -> Tree:
    """The tree stored in one session file of a recording, with each session's leaf and requests."""
    infos = [s for s in recording.manifest["sessions"] if s["file"] == file]
    if not infos:
        files = sorted({s["file"] for s in recording.manifest["sessions"]})
        raise KeyError(f"{recording.path}: no session in file {file!r}; files: {files}")
    session = recording.files.get(file)
    if session is None:
        from miniagent.session import Session

        session = Session.open(recording.path / file)
    entries = {e["id"]: e for e in session.entries}
    children: dict[str, list[str]] = {i: [] for i in entries}
    roots = []
    for e in session.entries:
        (children[e["parentId"]] if e["parentId"] else roots).append(e["id"])
    x, y, lane = {}, {}, [0]

    def place(node: str, depth: int, row: int) -> None:  # iterative would be longer; trees here are shallow
        x[node], y[node] = depth, row
        for i, child in enumerate(children[node]):
            if i:
                lane[0] += 1
            place(child, depth + 1, row if i == 0 else lane[0])

    import sys

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * len(entries) + 100))
    for i, root in enumerate(roots):
        if i:
            lane[0] += 1
        place(root, 0, lane[0])
    wanted = {s["id"] for s in infos}
    rows = {r.seq: r for r in calculator.analyze(recording, sessions=sorted(wanted))}
    leaves = []
    for info in infos:
        path = [e["id"] for e in session.path_to(info["leaf"])]
        fork = (info.get("forked_from") or {}).get("entry")
        leaves.append(Leaf(info["id"], info["leaf"], path, fork, _requests(recording, info["id"], rows)))
    return Tree(file, entries, children, x, y, leaves)


# -- the tree figure -----------------------------------------------------------------------------

def _node_hover(tree: Tree, node: str, requests: dict[str, Request]) -> str:
    entry = tree.entries[node]
    text = f"<b>{_esc(entry_text(entry))}</b><br>id {node} · parentId {entry['parentId']}"
    if len(tree.children[node]) > 1:
        text += f"<br>分叉点:这里长出 {len(tree.children[node])} 条分支"
    r = requests.get(node)
    if r is not None:
        hit = "—" if r.measured is None else f"{r.measured:,}"
        text += (f"<br>{r.session} 第 {r.round} 轮:prompt {r.prompt_tokens:,} token,"
                 f"实测读取 {hit},计算器 {r.predicted:,}<br>命中来自:{_esc(r.source)}")
    return text


def leaf_summary(tree: Tree, leaf: Leaf) -> str:
    """What the figure says about a chosen leaf (HTML): its path, its first request, its measured hit."""
    path = [tree.entries[i] for i in leaf.path]
    kinds = [kind_of(e) for e in path]
    n_calls = kinds.count("model_call")
    head = (f"<b>{leaf.session}</b>:根到叶子 {len(path)} 个条目"
            f"(user {kinds.count('user')}、assistant {kinds.count('assistant')}、工具结果 {kinds.count('tool')}、"
            f"请求 {n_calls})")
    if leaf.forked_at:
        head += f";从条目 {leaf.forked_at}(深度 {tree.x[leaf.forked_at]})分出"
    first = leaf.first
    if first is None:
        return head
    hit = "—" if first.measured is None else f"{first.measured:,}"
    return (head + f"<br>它的第一个请求:{first.messages} 条消息,最后一条 user:“{_esc(_short(first.last_user, 60))}”"
            f"<br>prompt {first.prompt_tokens:,} token,<b>实测读取 {hit}</b>,计算器推算 {first.predicted:,};"
            f"命中来自:{_esc(first.source)}")


def tree_figure(tree: Tree, start: str | None = None) -> go.Figure:
    """The session tree: every entry of the file as a node, edges parent → child.

    One button per leaf (a recorded session): it highlights that leaf's root-to-leaf path and
    writes the path's summary and its first request's measured hit above the tree.
    """
    requests = {r.entry_id: r for leaf in tree.leaves for r in leaf.requests}
    fig = go.Figure()
    ex, ey = [], []
    for node, kids in tree.children.items():
        for kid in kids:
            ex += [tree.x[node], tree.x[kid], None]
            ey += [tree.y[node], tree.y[kid], None]
    fig.add_scatter(x=ex, y=ey, mode="lines", line=dict(color="#d1d5db", width=2), hoverinfo="skip",
                    showlegend=False, name="边")
    for kind, (label, color, symbol) in TYPE_STYLE.items():
        nodes = [n for n in tree.entries if kind_of(tree.entries[n]) == kind]
        if not nodes:
            continue
        fig.add_scatter(x=[tree.x[n] for n in nodes], y=[tree.y[n] for n in nodes], mode="markers", name=label,
                        marker=dict(color=color, symbol=symbol, size=12 if kind == "model_call" else 9,
                                    line=dict(width=1, color="#ffffff")),
                        hovertext=[_node_hover(tree, n, requests) for n in nodes], hoverinfo="text")
    base = len(fig.data)
    for leaf in tree.leaves:  # one highlight per leaf, hidden until chosen
        fig.add_scatter(x=[tree.x[i] for i in leaf.path], y=[tree.y[i] for i in leaf.path], mode="lines",
                        line=dict(color=PATH_COLOR, width=6), opacity=0.55, hoverinfo="skip", visible=False,
                        name="选中的路径", showlegend=False)
    chosen = next((i for i, l in enumerate(tree.leaves) if l.session == start), 0)
    fig.data[base + chosen].visible = True

    def visible(k: int) -> list[bool]:
        return [i < base or i == base + k for i in range(len(fig.data))]

    def note(k: int) -> list[dict]:
        return [dict(text=leaf_summary(tree, tree.leaves[k]), x=0, y=1.0, xref="paper", yref="paper",
                     xanchor="left", yanchor="bottom", align="left", showarrow=False, font=dict(size=12))]

    lanes = max(tree.y.values()) + 1
    fig.update_layout(
        height=260 + 34 * lanes, margin=dict(l=10, r=10, t=150, b=40), hovermode="closest",
        xaxis=dict(title="条目在路径上的深度(从根数起)", zeroline=False),
        yaxis=dict(visible=False, autorange="reversed", range=[lanes - 0.5, -0.5]),
        legend=dict(orientation="h", y=-0.12, x=0), annotations=note(chosen),
        updatemenus=[dict(type="dropdown", x=0, y=1.42, xanchor="left", yanchor="top", showactive=True, active=chosen,
                          buttons=[dict(label=f"叶子:{leaf.session}", method="update",
                                        args=[{"visible": visible(k)}, {"annotations": note(k)}])
                                   for k, leaf in enumerate(tree.leaves)])])
    return fig


def tree_text(tree: Tree, width: int = 44) -> str:
    """The tree as indented text (what `miniagent session tree` prints looks similar), for tests and labs."""
    leaf_of = {l.leaf: l.session for l in tree.leaves}
    lines = []

    def walk(node: str, indent: int) -> None:
        mark = f"  ← {leaf_of[node]}" if node in leaf_of else ""
        lines.append("  " * indent + f"{node} {_short(entry_text(tree.entries[node]), width)}{mark}")
        kids = tree.children[node]
        for i, kid in enumerate(kids):
            walk(kid, indent + (1 if len(kids) > 1 else 0))

    for root in (n for n, e in tree.entries.items() if e["parentId"] is None):
        walk(root, 0)
    return "\n".join(lines)


# -- branch switching under several server setups ---------------------------------------------

@dataclass
class SwitchRow:
    order: int            # position in the setup's request order (1-based)
    session: str
    round: int
    prompt_tokens: int
    measured: int | None
    predicted: int
    ok: bool | None
    source: str
    notes: tuple[str, ...]  # what the rule saw happen: slot choice, host-cache save / load


def switch_rows(recording: Recording, sessions: list[str] | None = None) -> list[SwitchRow]:
    """Every request of one recording (or of some of its sessions) in global order, measured next to predicted."""
    rows = calculator.analyze(recording, sessions=sessions)
    out = []
    for i, row in enumerate(sorted(rows, key=lambda r: r.seq), start=1):
        notes = tuple(row.prediction.notes) if row.prediction is not None else ()
        out.append(SwitchRow(i, row.session, row.round, row.prompt_tokens, row.measured, row.read, row.ok,
                             hit_source(recording, row), notes))
    return out


def switch_data(setups: dict[str, Recording], sessions: list[str] | None = None) -> dict[str, list[SwitchRow]]:
    return {label: switch_rows(rec, sessions) for label, rec in setups.items()}


SESSION_COLORS = ["#64748b", "#f59e0b", "#7c3aed", "#0891b2", "#dc2626", "#16a34a"]


def _switch_hover(label: str, r: SwitchRow) -> str:
    hit = "—" if r.measured is None else f"{r.measured:,}"
    notes = "".join(f"<br>· {_esc(n)}" for n in r.notes)
    return (f"<b>{_esc(label)}</b> · 第 {r.order} 个请求:{r.session} 第 {r.round} 轮"
            f"<br>prompt {r.prompt_tokens:,},实测读取 {hit},计算器 {r.predicted:,}"
            f"<br>命中来自:{_esc(r.source)}{notes}")


def switch_figure(data: dict[str, list[SwitchRow]]) -> go.Figure:
    """One panel per server setup: each request's prompt (grey outline), measured hit (bar, coloured
    by session) and the calculator's prediction (black tick). Buttons show one setup or all."""
    labels = list(data)
    sessions = list(dict.fromkeys(r.session for rows in data.values() for r in rows))
    color = {s: SESSION_COLORS[i % len(SESSION_COLORS)] for i, s in enumerate(sessions)}
    fig = make_subplots(rows=len(labels), cols=1, shared_xaxes=False, vertical_spacing=0.09,
                        subplot_titles=[_esc(l) for l in labels])
    for k, label in enumerate(labels, start=1):
        rows = data[label]
        x = [r.order for r in rows]
        fig.add_bar(x=x, y=[r.prompt_tokens for r in rows], width=0.7, marker=dict(color="rgba(0,0,0,0)",
                    line=dict(color="#9ca3af", width=1)), name="prompt", legendgroup="prompt",
                    showlegend=k == 1, hoverinfo="skip", row=k, col=1)
        for s in sessions:
            mine = [r for r in rows if r.session == s]
            if not mine:
                continue
            # width fixed: a trace whose bars stand every other slot would otherwise draw them twice as wide
            fig.add_bar(x=[r.order for r in mine], y=[r.measured or 0 for r in mine], name=f"实测读取 · {s}", width=0.7,
                        marker_color=color[s], legendgroup=s, showlegend=k == 1,
                        hovertext=[_switch_hover(label, r) for r in mine], hoverinfo="text", row=k, col=1)
        fig.add_scatter(x=x, y=[r.predicted for r in rows], mode="markers", name="计算器推算",
                        marker=dict(symbol="line-ew-open", size=18, color="#111827", line=dict(width=3)),
                        legendgroup="pred", showlegend=k == 1, hoverinfo="skip", row=k, col=1)
        fig.update_yaxes(title_text="token", row=k, col=1)
        fig.update_xaxes(dtick=1, row=k, col=1)
    fig.update_xaxes(title_text="请求的先后(同一台服务器上)", row=len(labels), col=1)
    panels = 260 * len(labels)  # the legend sits above the first panel's title, in paper units
    fig.update_layout(barmode="overlay", height=140 + panels, margin=dict(l=10, r=10, t=110, b=40),
                      legend=dict(orientation="h", x=0, y=1 + 40 / panels, yanchor="bottom"), bargap=0.25)
    return fig
