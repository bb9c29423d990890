"""Lesson A6·1 over the T11 recording: every request's make-up, where the rule is, where the prefix breaks.

    from chapters.a6.figures import rule_placement as rp
    rows = rp.request_rows(recording)     # one RequestRow per recorded request, in recorded order
    rp.composition_figure(recording)      # stacked bars per request; a menu picks the variant

Every number comes from the recording: ``prompt_tokens`` and ``cached_tokens`` as the server
reported them, the parts from block attribution (``prefixlab.cache.composition``), the break from
the llama.cpp rule (``prefixlab.cache.calculator``, which predicts every T11 request exactly).
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.cache import calculator, composition
from prefixlab.recording.format import Recording

# in prompt order: a compaction's summary comes before the rounds it keeps
PART_LABELS = {"base": "基础 prompt", "agents_md": "AGENTS.md", "memory": "记忆", "tools": "工具定义",
               "summary": "压缩摘要", "history": "对话历史", "template": "模板标记", "skills": "技能"}
PART_COLORS = {"base": "#1d4ed8", "agents_md": "#f59e0b", "memory": "#16a34a", "tools": "#94a3b8",
               "history": "#c4b5fd", "summary": "#db2777", "template": "#e5e7eb", "skills": "#9333ea"}
VARIANT_LABELS = {"message": "规矩写在第一条消息里", "agents": "规矩写在 AGENTS.md 里",
                  "edit-frozen": "中途改 AGENTS.md(miniagent:压缩时才重读)",
                  "edit-reload": "中途改 AGENTS.md(每次调用前都重读)"}


@dataclass(frozen=True)
class RequestRow:
    seq: int
    session: str
    variant: str
    day: int
    round: int
    kind: str                 # "model_call" or "compaction" (the summary request)
    prompt_tokens: int
    cached_tokens: int | None
    predicted: int            # the llama.cpp rule's cached tokens
    parts: dict               # part -> tokens (prefixlab.cache.composition.PARTS)
    rule_blocks: tuple        # blocks holding the rule's text (empty: not in this request)
    rule_tokens: int
    break_block: str | None   # where the cached prefix ends
    has_tools: bool
    reads_previous: bool = False  # read back the whole previous request of its server run: ordinary growth

    @property
    def break_words(self) -> str:
        """Where the prefix broke, in words; "—" when the request only grew (it read back the whole previous one)."""
        if self.reads_previous:
            return "—"
        if self.cached_tokens == 0:
            return "开头(缓存是空的)"
        return block_words(self.break_block)

    @property
    def label(self) -> str:
        """Short x-axis label: D1·3, D1·压缩, D2·1."""
        return f"D{self.day}·" + ("压缩" if self.kind == "compaction" else str(self.round))

    @property
    def where(self) -> str:
        """Where the rule is, in words."""
        if not self.rule_blocks:
            return "不在"
        return "、".join(block_words(b) for b in self.rule_blocks)


BLOCK_WORDS = {"base": "基础 prompt", "agents_md": "AGENTS.md", "memory_header": "记忆标题", "skills": "技能索引",
               "memory_body": "记忆正文", "tools": "工具定义"}
ROLE_WORDS = {"user": "user", "assistant": "assistant", "tool": "工具结果"}


def block_words(name: str | None) -> str:
    """A block of the rendered prompt, named the way the lesson text names it.

    The calculator names blocks ``base``, ``agents_md``, ``memory_body``, ``tools`` (the system prompt's
    parts and the tool definitions), ``user#1`` (message 1 of the request; message 0 is the system prompt)
    and ``template#k`` (the chat template's k-th stretch of marker tokens between the contents)."""
    if name is None:
        return "—"
    if name in BLOCK_WORDS:
        return BLOCK_WORDS[name]
    role, _, index = name.partition("#")
    if role == "template":
        return "prompt 开头(模板标记)" if index == "0" else f"模板标记 #{index}"
    if role in ROLE_WORDS:
        return f"消息 {index}({ROLE_WORDS[role]})"
    return name


def request_rows(recording: Recording) -> list[RequestRow]:
    """One row per request of a T11 recording, in the order the server received them."""
    replay = calculator.prepare(recording)
    predicted = {r.seq: r for r in calculator.analyze(replay)}
    rule = recording.manifest["rule"]
    info = {s["id"]: s for s in recording.manifest["sessions"]}
    out = []
    previous = None
    for call, att in zip(recording.calls, replay.attributions):
        messages = call.request["messages"]
        found = composition.find(att, rule, messages)
        row = predicted[call.seq]
        out.append(RequestRow(
            call.seq, call.session, info[call.session].get("variant", call.session), info[call.session]["day"],
            call.round, call.kind, call.prompt_tokens, call.cached_tokens, row.read,
            composition.tokens_by_part(att, messages), tuple(o.block for o in found), sum(o.tokens for o in found),
            row.break_block, bool(call.request.get("tools")),
            previous is not None and previous.epoch == call.epoch and call.cached_tokens is not None
            and call.cached_tokens >= previous.prompt_tokens))
        previous = call
    return out


def variants(rows: list[RequestRow]) -> list[str]:
    seen = []
    for r in rows:
        if r.variant not in seen:
            seen.append(r.variant)
    return seen


def _hover(r: RequestRow) -> str:
    parts = "<br>".join(f"{PART_LABELS[p]}:{n:,}" for p, n in r.parts.items() if n)
    what = "压缩的摘要请求(不带工具定义)" if r.kind == "compaction" else f"第 {r.round} 轮"
    cached = "未报告" if r.cached_tokens is None else f"{r.cached_tokens:,}"
    return (f"{r.session} · {what}<br>prompt {r.prompt_tokens:,} token,实测读取 {cached}"
            f"(计算器 {r.predicted:,}),打断处:{r.break_words}<br>规矩:{r.where}"
            + (f"({r.rule_tokens:,} token)" if r.rule_tokens else "") + f"<br>{parts}")


def composition_figure(recording: Recording) -> go.Figure:
    """Per-request token make-up across rounds and days, one variant at a time (a menu switches).

    Bars: the parts of each request (stacked, in prompt order). Black diamonds: the server's
    measured cached tokens. Above each bar: ✓ when the rule's text is in that request, ✗ when not.
    """
    rows = request_rows(recording)
    names = variants(rows)
    present = [p for p in PART_LABELS if any(r.parts[p] for r in rows)]  # e.g. no skills in T11
    fig = go.Figure()
    per_variant = []  # trace indices of each variant
    for v in names:
        mine = [r for r in rows if r.variant == v]
        x = [f"{r.label}" for r in mine]
        hover = [_hover(r) for r in mine]
        first = len(fig.data)
        for part in present:
            label = PART_LABELS[part]
            fig.add_trace(go.Bar(x=x, y=[r.parts[part] for r in mine], name=label, legendgroup=part,
                                 marker_color=PART_COLORS[part], hovertext=hover, hoverinfo="text",
                                 visible=v == names[0]))  # every variant has its legend: hidden traces show none
        fig.add_trace(go.Scatter(x=x, y=[r.cached_tokens for r in mine], mode="markers", name="实测读取",
                                 legendgroup="cached", marker=dict(symbol="diamond", size=9, color="#111827"),
                                 hovertext=hover, hoverinfo="text", visible=v == names[0]))
        fig.add_trace(go.Scatter(
            x=x, y=[r.prompt_tokens for r in mine], mode="text", name="规矩在不在", legendgroup="rule",
            text=["✓" if r.rule_blocks else "✗" for r in mine], textposition="top center",
            textfont=dict(size=14, color=["#15803d" if r.rule_blocks else "#b91c1c" for r in mine]),
            hovertext=hover, hoverinfo="text", showlegend=False, visible=v == names[0]))
        per_variant.append(range(first, len(fig.data)))
    buttons = []
    for v, indices in zip(names, per_variant):
        visible = [i in indices for i in range(len(fig.data))]
        buttons.append(dict(label=VARIANT_LABELS.get(v, v), method="update",
                            args=[{"visible": visible}, {"title.text": _title(v)}]))
    top = max(r.prompt_tokens for r in rows)
    fig.update_layout(
        barmode="stack", height=520, margin=dict(l=10, r=10, t=120, b=50),
        title=dict(text=_title(names[0]), y=0.97, yanchor="top"),
        yaxis=dict(title="token 数", range=[0, top * 1.12], tickformat=","),
        xaxis=dict(title="第几天 · 第几轮(“压缩”是压缩时那次写摘要的请求)", type="category"),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, font=dict(size=11)),
        updatemenus=[dict(type="dropdown", x=1, xanchor="right", y=1.22, yanchor="top", buttons=buttons,
                          active=0)])
    return fig


def _title(variant: str) -> str:
    return f"{VARIANT_LABELS.get(variant, variant)}:每个请求由什么组成(✓/✗ = 规矩在不在 prompt 里)"
