"""Lesson A6·R's figures: three ways of getting memory into the requests, request by request.

    from chapters.a6.figures import strategies as sf
    data = sf.strategy_data(rec, {"frozen": "frozen", "select": "select", "retrieve": "retrieve"})
    sf.strategy_figure(data)          # strategy x request: read / written / recomputed, memory injected
    sf.totals_table(data)             # one row per (view, strategy): the sums
    sf.recall_figure(points)          # recall@k against the memory tokens each strategy injects

A *view* is one way of reading the same recorded requests: our llama-server (its own measured
``cached_tokens`` next to the calculator's prediction), or the calculator's projection onto a
provider's cache rule, priced with ``prefixlab.cache.pricing`` (a conversion of our tokens at that
price list, not a bill). One view replays the recorded requests with the user pausing between
requests, to show what a cache lifetime does to each strategy.

Every number comes from a recording; the figures switch precomputed traces in plotly.js (menus),
so they work in the static book without a kernel.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from prefixlab.cache import calculator, composition, pricing, rules
from prefixlab.cache.rules import openai as openai_rule
from prefixlab.recording.format import Call, Recording

STRATEGY_LABELS = {
    "frozen": "冻结快照:整份记忆,会话开始时进 system prompt",
    "select": "每条用户消息挑选:挑中的记忆进 system prompt",
    "retrieve": "每条用户消息检索:召回的记忆接在本轮 user 消息后",
}
SHORT_LABELS = {"frozen": "冻结快照", "select": "挑选 → system", "retrieve": "检索 → user 消息"}
MEMORY_BLOCKS = ("memory_header", "memory_body")  # where a SystemPrompt's memory sits (attribution)
PAUSE_S = 600.0  # the pause view: ten minutes between two user requests, longer than Anthropic's 5 minutes
ANTHROPIC_MODEL = "claude-opus-5"
OPENAI_MODEL = "gpt-5.5"


@dataclass(frozen=True)
class View:
    """One reading of the requests: a cache rule (with its settings), a price list, a clock."""

    key: str
    label: str
    rule: str
    config: dict = field(default_factory=dict)
    model: str | None = None         # price the rule's predictions with this model (None: no prices)
    pause_s: float | None = None     # seconds added before every user request after the first (None: recorded clock)
    short: str = ""                  # the label in tables

    @property
    def measured(self) -> bool:
        """The server that made the recording measured this rule (only the local rule)."""
        return rules.get(self.rule).SERVER is not None


VIEWS = (
    View("local", "本机 llama-server:实测读取(和计算器的推算)", "llamacpp", short="本机(实测)"),
    View("anthropic", f"Anthropic · {ANTHROPIC_MODEL} · 自动缓存 · 按录制的时间", "anthropic",
         {"model": ANTHROPIC_MODEL}, ANTHROPIC_MODEL, short="Anthropic"),
    View("anthropic-pause", f"Anthropic · {ANTHROPIC_MODEL} · 自动缓存 · 每条用户消息前停 {PAUSE_S / 60:g} 分钟",
         "anthropic", {"model": ANTHROPIC_MODEL}, ANTHROPIC_MODEL, PAUSE_S, short=f"Anthropic,停 {PAUSE_S / 60:g} 分钟"),
    View("openai", f"OpenAI · {OPENAI_MODEL} · {openai_rule.default_retention(OPENAI_MODEL)} 保留 · 按录制的时间",
         "openai", {"retention": openai_rule.default_retention(OPENAI_MODEL)}, OPENAI_MODEL, short="OpenAI"),
)


@dataclass(frozen=True)
class Point:
    """One request of one strategy under one view."""

    strategy: str
    session: str
    seq: int
    index: int            # the request's place in its session (1, 2, ...)
    round: int            # the recorded round: the model call's number within its user request
    turn: int             # the user request it serves (1 = the first thing the user asked)
    injected: int         # tokens of memory text this request carries (header included)
    prompt: int           # prompt tokens
    measured: int | None  # the server's cached_tokens (meaningful only in a measured view)
    read: int             # predicted tokens read from cache
    write: int            # predicted tokens written to cache
    fresh: int            # predicted tokens computed (read + fresh == prompt)
    break_block: str | None
    cost: float | None = None  # USD at the view's price list (None: a local view)

    @property
    def uncached(self) -> int:
        """Computed and not written: what the bar shows in grey."""
        return self.fresh - self.write


# -- what a request carries ---------------------------------------------------------------------------

def turn_of(call: Call) -> int:
    """Which user request a call serves: the number of user messages it sends."""
    return sum(1 for m in call.request["messages"] if m.get("role") == "user")


def recalled_text(call: Call) -> str | None:
    """The recalled-notes part (header included) of the call's last user message, if it has one."""
    from miniagent.variants.retrieve_memory import RECALL_MARK

    users = [m for m in call.request["messages"] if m.get("role") == "user"]
    if not users:
        return None
    content = users[-1].get("content") or ""
    at = content.rfind(RECALL_MARK)
    return None if at < 0 else content[at:].lstrip("\n")


def injected_tokens(att, call: Call) -> int:
    """Memory tokens a request carries: its memory blocks (the attribution names the memory header and
    body wherever they sit: in the system prompt, or after the user's words in a user message); a
    recalled block the attribution does not name is found by its text."""
    tokens = sum(len(b) for b in att.blocks if b.name in MEMORY_BLOCKS)
    if tokens:
        return tokens
    text = recalled_text(call)
    return sum(o.tokens for o in composition.find(att, text, call.request["messages"])) if text else 0


# -- replaying under a view -----------------------------------------------------------------------------

def paused_times(recording: Recording, indices: list[int], pause_s: float,
                 times: dict[int, float] | None = None) -> dict[int, float]:
    """Each call's time if the user waited ``pause_s`` more before every user request after the first.

    ``times`` are the calls' times before the pauses (default: as recorded). The shift only grows
    (in the order given), so times in order stay in order."""
    out, shift, last_turn = {}, 0.0, {}
    for i in indices:
        call = recording.calls[i]
        turn = turn_of(call)
        if call.session in last_turn and turn > last_turn[call.session]:
            shift += pause_s
        last_turn[call.session] = turn
        out[i] = (times or {}).get(i, call.t) + shift
    return out


def view_rows(recording: Recording, view: View, sessions: list[str]) -> list[calculator.Row]:
    """The calculator's rows of ``sessions`` under ``view`` (every epoch replayed whole, as ``analyze``)."""
    if view.pause_s is None:
        return calculator.analyze(recording, view.rule, sessions, **view.config)
    replay = calculator.prepare(recording)
    config = calculator.rule_config(recording, view.rule, **view.config)
    wanted, out = set(sessions), []
    for _, indices in sorted(calculator.epochs(recording).items()):
        if not any(recording.calls[i].session in wanted for i in indices):
            continue
        days = calculator.request_times(recording, indices, calculator.between_days_for(recording, view.rule))
        times = paused_times(recording, indices, view.pause_s, days)
        requests = calculator.make_requests(replay, indices, view.rule, times=times)
        for i, p in zip(indices, rules.predict(view.rule, requests, **config)):
            if recording.calls[i].session in wanted:
                out.append(calculator.make_row(recording.calls[i], replay.attributions[i], p, view.rule))
    return sorted(out, key=lambda r: r.seq)


def strategy_data(recording: Recording, sessions: dict[str, str], views=VIEWS) -> dict[str, dict[str, list[Point]]]:
    """{view key: {strategy: [Point per request]}} for the strategies' sessions (strategy -> session id)."""
    replay = calculator.prepare(recording)
    by_session = {s: k for k, s in sessions.items()}
    out: dict[str, dict[str, list[Point]]] = {}
    for view in views:
        per = {k: [] for k in sessions}
        for row in view_rows(recording, view, list(sessions.values())):
            call = recording.calls[row.seq]
            cost = pricing.request_cost(row.prediction, view.model).total if view.model else None
            strategy = by_session[row.session]
            per[strategy].append(Point(
                strategy, row.session, row.seq, len(per[strategy]) + 1, row.round, turn_of(call),
                injected_tokens(replay.attributions[row.seq], call), row.prompt_tokens, row.measured,
                row.read, row.write, row.fresh, row.break_block, cost))
        out[view.key] = per
    return out


# -- sums -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Totals:
    requests: int
    turns: int
    injected: int
    prompt: int
    read: int
    written: int
    recomputed: int
    measured: int | None
    cost: float | None


def totals(points: list[Point]) -> Totals:
    measured = [p.measured for p in points]
    costs = [p.cost for p in points]
    return Totals(len(points), len({p.turn for p in points}), sum(p.injected for p in points),
                  sum(p.prompt for p in points), sum(p.read for p in points), sum(p.write for p in points),
                  sum(p.fresh for p in points),
                  None if any(m is None for m in measured) else sum(measured),
                  None if any(c is None for c in costs) else sum(costs))


def view_of(key: str, views=VIEWS) -> View:
    for v in views:
        if v.key == key:
            return v
    raise KeyError(f"no view {key!r}; views: {', '.join(v.key for v in views)}")


def totals_rows(data: dict, views=VIEWS) -> list[list]:
    """Table rows: view, strategy, injected, prompt, read, written, recomputed, USD (see TOTALS_HEADER).

    A measured view's "read" is the server's measurement (the rows come from the calculator, which
    agrees with every one; a disagreement raises rather than showing a prediction as measured)."""
    out = []
    for view in views:
        if view.key not in data:
            continue
        for strategy, points in data[view.key].items():
            t = totals(points)
            if view.measured and t.measured != t.read:
                raise ValueError(f"{view.key}/{strategy}: predicted {t.read} read tokens, the server measured {t.measured}")
            out.append([view.short or view.label, SHORT_LABELS.get(strategy, strategy), t.injected, t.prompt, t.read,
                        t.written, t.recomputed, f"${t.cost:.4f}" if t.cost is not None else "—"])
    return out


TOTALS_HEADER = ["读法", "做法", "记忆", "prompt", "读取", "写入", "重算", "折算"]  # token counts; USD last


# -- the figure: strategy x request -------------------------------------------------------------------------

BAR_PARTS = (("read", "从缓存读", "#16a34a"), ("write", "写入缓存", "#2563eb"), ("uncached", "重算、不写入", "#9ca3af"))


def _hover(p: Point, view: View) -> str:
    lines = [f"{SHORT_LABELS.get(p.strategy, p.strategy)} · 第 {p.turn} 条用户消息的第 {p.round} 轮(会话第 {p.index} 个请求)",
             f"注入的记忆:{p.injected:,} token",
             f"prompt {p.prompt:,}:读 {p.read:,} / 写 {p.write:,} / 算 {p.fresh:,}"]
    if view.measured and p.measured is not None:
        lines.append(f"实测读取 {p.measured:,}")
    if p.break_block:
        lines.append(f"前缀断在 <b>{p.break_block}</b>")
    if p.cost is not None:
        lines.append(f"折算 ${p.cost:.6f}")
    return "<br>".join(lines)


def _title(strategy: str, points: list[Point], view: View) -> str:
    t = totals(points)
    text = f"{STRATEGY_LABELS.get(strategy, strategy)} —— 合计重算 {t.recomputed:,} token"
    if t.cost is not None:
        text += f",折算 ${t.cost:.4f}"
    return text


def strategy_figure(data: dict, views=VIEWS) -> go.Figure:
    """One row per strategy, one bar per request (read / written / recomputed), the memory tokens it
    carries as a line, the server's measured hit as a mark (local view); a menu switches the view."""
    views = [v for v in views if v.key in data]
    strategies = list(next(iter(data.values())))
    fig = make_subplots(rows=len(strategies), cols=1, shared_xaxes=True, vertical_spacing=0.09,
                        subplot_titles=[STRATEGY_LABELS.get(s, s) for s in strategies])
    index: dict[str, list[int]] = {}
    for view in views:
        index[view.key] = []
        for row, strategy in enumerate(strategies, start=1):
            points = data[view.key][strategy]
            x = [p.index for p in points]
            hover = [_hover(p, view) for p in points]
            for part, name, color in BAR_PARTS:
                index[view.key].append(len(fig.data))
                fig.add_bar(x=x, y=[getattr(p, part) for p in points], name=name, marker_color=color,
                            legendgroup=part, showlegend=row == 1, visible=False,
                            hovertext=hover if part == "read" else None,
                            hoverinfo="text" if part == "read" else "skip", row=row, col=1)
            index[view.key].append(len(fig.data))
            fig.add_scatter(x=x, y=[p.injected for p in points], mode="lines+markers", name="注入的记忆 token",
                            line=dict(color="#f59e0b", width=2), marker=dict(size=6), legendgroup="injected",
                            showlegend=row == 1, visible=False, hoverinfo="skip", row=row, col=1)
            if view.measured:
                index[view.key].append(len(fig.data))
                fig.add_scatter(x=x, y=[p.measured for p in points], mode="markers", name="实测读取(服务器报告)",
                                marker=dict(symbol="line-ew-open", size=18, color="#111827",
                                            line=dict(width=3, color="#111827")),
                                legendgroup="measured", showlegend=row == 1, visible=False, hoverinfo="skip",
                                row=row, col=1)
    # where a new user request starts: the same in every view
    first = data[views[0].key]
    for row, strategy in enumerate(strategies, start=1):
        points = first[strategy]
        for a, b in zip(points, points[1:]):
            if b.turn != a.turn:
                fig.add_vline(x=b.index - 0.5, line_width=1, line_dash="dot", line_color="#6b7280", row=row, col=1)

    def visible(key: str) -> list[bool]:
        on = set(index[key])
        return [i in on for i in range(len(fig.data))]

    def titles(view: View) -> list[dict]:
        out = []
        for annotation, strategy in zip(fig.layout.annotations[:len(strategies)], strategies):
            a = annotation.to_plotly_json()
            a["text"] = _title(strategy, data[view.key][strategy], view)
            out.append(a)
        return out

    base_titles = titles(views[0])
    for i in index[views[0].key]:
        fig.data[i].visible = True
    fig.update_layout(
        annotations=base_titles, barmode="stack", hovermode="x", height=230 * len(strategies) + 160,
        margin=dict(l=10, r=10, t=110, b=40), legend=dict(orientation="h", y=1.08, x=0),
        updatemenus=[dict(type="dropdown", x=0, y=1.2, xanchor="left", showactive=True,
                          buttons=[dict(label=v.label, method="update",
                                        args=[{"visible": visible(v.key)}, {"annotations": titles(v)}])
                                   for v in views])])
    fig.update_xaxes(dtick=1)
    fig.update_xaxes(title_text="会话里的第几个请求(虚线:用户又发了一次话)", row=len(strategies), col=1)
    top = max(p.prompt for per in data.values() for points in per.values() for p in points)
    fig.update_yaxes(title_text="token", range=[0, top * 1.05])  # one scale: the rows compare by height
    return fig


# -- recall@k against the tokens injected -------------------------------------------------------------------

LABELLED_K = (1, 3, 5, 10)
RECALL_MEASURES = (("recall", "平均召回率:需要的记忆带上了几成"), ("complete", "找齐率:需要的记忆全带上的请求占几成"))


def recall_figure(summaries, title: str = "召回率和注入的记忆 token(小测试,不是结论)") -> go.Figure:
    """recall@k (y) against the memory tokens injected (x), one line per strategy, k on the points.

    ``summaries``: objects with ``strategy``, ``k`` (None = every note), ``recall``, ``complete`` and
    ``tokens`` (mean per request), e.g. ``chapters.a6.figures.recall.summary(rows)``. Two buttons
    switch between mean recall and the share of requests that carry every note they need."""
    fig = go.Figure()
    strategies = list(dict.fromkeys(p.strategy for p in summaries))
    labelled = next((s for s in strategies if any(p.k is not None for p in summaries if p.strategy == s)), None)
    for measure, label in RECALL_MEASURES:
        for strategy in strategies:
            mine = sorted((p for p in summaries if p.strategy == strategy), key=lambda p: (p.k is None, p.k or 0))
            name = SHORT_LABELS.get(strategy, strategy)
            # k on a few points of one line only: the lines of strategies that share a retriever overlap
            text = ["全部" if p.k is None else f"k={p.k}" if strategy == labelled and p.k in LABELLED_K else ""
                    for p in mine]
            fig.add_scatter(
                x=[p.tokens for p in mine], y=[getattr(p, measure) for p in mine], mode="lines+markers+text",
                name=name, legendgroup=strategy, visible=measure == RECALL_MEASURES[0][0],
                text=text, textposition="top left",
                hovertext=[f"{name},{'全部记忆' if p.k is None else f'k = {p.k}'}<br>平均召回率 {p.recall:.0%}"
                           f"<br>找齐率 {p.complete:.0%}<br>平均每个请求注入 {p.tokens:,.0f} token" for p in mine],
                hoverinfo="text")
    n = len(strategies)
    fig.update_layout(
        title=dict(text=title, y=0.97), height=460, margin=dict(l=10, r=10, t=120, b=40),
        xaxis=dict(title="每个请求平均注入的记忆 token(对数刻度)", type="log"),
        yaxis=dict(range=[0, 1.08], tickformat=".0%"),
        legend=dict(orientation="h", y=-0.2, x=0),
        updatemenus=[dict(type="buttons", direction="right", x=0, y=1.14, xanchor="left",
                          buttons=[dict(label=label, method="update",
                                        args=[{"visible": [j // n == i for j in range(len(fig.data))]}])
                                   for i, (_, label) in enumerate(RECALL_MEASURES)])])
    return fig
