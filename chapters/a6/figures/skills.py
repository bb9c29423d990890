"""Lesson A6·3's figures: what dozens of skills cost in the prompt, and where a new one breaks the prefix.

    from chapters.a6.figures import skills as sf
    m = sf.load_manifest()                       # data/a6/skills/hermes-manifest.json (every SKILL.md at the Hermes pin)
    curve = sf.count_curve(m, base_tokens=600)   # n = 0..N skills, shortest first: inline vs index tokens
    sf.largest_fitting(curve, window=8192)       # how many whole skill texts fit in the served window
    sf.skills_count_figure(m, window=8192, price=pricing.model_price("claude-opus-5"), base_tokens=600)

    views = [sf.break_view(rec, "added-stable-day1", "索引在稳定层"), ...]
    sf.break_figure(views)                       # the first request after the skill was added, block by block

Both figures stay interactive in a static page: the slider and the menu switch precomputed values
in the browser (plotly.js), no kernel needed. Nothing here is typed in: token counts come from the
manifest (our tokenizer over each SKILL.md) or from a recording; prices from ``data/prices``.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import plotly.graph_objects as go

from prefixlab.cache import calculator
from prefixlab.cache.pricing import MTOK, ModelPrice
from chapters.a6.paths import SKILLS
from prefixlab.recording.format import Recording

MANIFEST = SKILLS / "hermes-manifest.json"
# Description caps other projects use, in characters, each quoted on its citation card
# (data/citations.yml; tests/test_skills_figures.py checks every value against that card's quote).
CITED_CAPS = {
    "hermes": (60, "hermes-skill-description-truncate"),          # cut to 57 + "..."
    "spec": (1024, "agentskills-spec-frontmatter"),                # the agentskills.io maximum; pi only warns
    "claude-code": (1536, "claude-code-skill-description-cap"),    # the skill listing's cut
}
INLINE_COLOR, INDEX_COLOR, WINDOW_COLOR = "#dc2626", "#2563eb", "#111827"
HIT_COLOR, FRESH_COLOR = "#16a34a", "#f97316"
# Parts of a rendered prompt, in the colours of the block strip (a block's name decides its part).
PARTS = (("skills", "技能(索引或全文)", "#9333ea"), ("base", "基础 prompt", "#64748b"),
         ("agents_md", "AGENTS.md", "#0891b2"), ("memory", "记忆", "#ca8a04"), ("tools", "工具定义", "#2563eb"),
         ("messages", "对话(含消息间的模板标记)", "#9ca3af"), ("template", "模板标记", "#e5e7eb"))


class ManifestError(ValueError):
    """The skills manifest is missing or does not have the documented shape; the message says what."""


@dataclass(frozen=True)
class SkillSize:
    name: str
    path: str
    description: str
    characters: int
    tokens: int        # the whole SKILL.md, under our tokenizer
    index_tokens: int  # its line in the index (name, capped description, location)


@dataclass(frozen=True)
class Manifest:
    source: dict               # repo, commit, licence, ...
    tokenizer: str
    description_cap: int       # characters of a description the index keeps
    header_tokens: int         # the index's fixed text around the per-skill lines (0 if not recorded)
    skills: tuple[SkillSize, ...]

    @property
    def total_tokens(self) -> int:
        return sum(s.tokens for s in self.skills)

    @property
    def index_total(self) -> int:
        return self.header_tokens + sum(s.index_tokens for s in self.skills)


def _int(entry: dict, key: str, where: str) -> int:
    value = entry.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ManifestError(f"{where}: {key!r} must be a non-negative integer, got {value!r}")
    return value


def parse_manifest(data, where: str = "manifest") -> Manifest:
    """Check the manifest's shape (see the module docstring) and keep what the figures need."""
    if not isinstance(data, dict):
        raise ManifestError(f"{where}: expected a JSON object at the top")
    for key in ("source", "tokenizer", "index", "skills"):
        if key not in data:
            raise ManifestError(f"{where}: missing {key!r}")
    skills = data["skills"]
    if not isinstance(skills, list) or not skills:
        raise ManifestError(f"{where}: 'skills' must be a non-empty list")
    if all(isinstance(s, dict) and "error" in s for s in skills):
        raise ManifestError(f"{where}: no skill could be parsed")
    index = data["index"] if isinstance(data["index"], dict) else {}
    out = []
    for i, s in enumerate(skills):
        at = f"{where}: skills[{i}]"
        if isinstance(s, dict) and "error" in s:  # a SKILL.md miniagent cannot parse: counted by the script, no index line
            continue
        if not isinstance(s, dict) or not isinstance(s.get("name"), str) or not s["name"]:
            raise ManifestError(f"{at}: every skill needs a 'name'")
        out.append(SkillSize(s["name"], str(s.get("path", "")), str(s.get("description", "")),
                             _int(s, "characters", at), _int(s, "tokens", at),
                             _int(s, "index_tokens", at)))
    return Manifest(dict(data["source"]), str(data["tokenizer"]), _int(index, "description_cap", f"{where}: index"),
                    int(index.get("header_tokens", 0) or 0), tuple(out))


def load_manifest(path: Path = MANIFEST) -> Manifest:
    path = Path(path)
    if not path.is_file():
        raise ManifestError(f"{path}: no skills manifest here; make it with scripts/hermes_skills_manifest.py")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}: not valid JSON ({e})") from e
    return parse_manifest(data, str(path))


@dataclass(frozen=True)
class CountPoint:
    """The first ``n`` skills of the manifest (listed order) under the two designs, in prompt tokens."""

    n: int
    inline: int   # base + every one of the n SKILL.md texts
    index: int    # base + the index of the n skills (its fixed text counted once there is a skill)
    last: str     # the n-th skill's name ("" for n = 0)


ORDERS = {"listed": "按清单顺序", "smallest": "从最短的技能起"}


def ordered(manifest: Manifest, order: str = "smallest") -> tuple[SkillSize, ...]:
    """The skills in the order the curve adds them: as listed, or the shortest text first (ties: listed order).

    Shortest first gives the most skills any inline prompt of a given size can hold.
    """
    if order == "listed":
        return manifest.skills
    if order == "smallest":
        return tuple(sorted(manifest.skills, key=lambda s: s.tokens))
    raise ValueError(f"unknown order {order!r}; one of {', '.join(ORDERS)}")


def count_curve(manifest: Manifest, base_tokens: int = 0, order: str = "smallest") -> list[CountPoint]:
    """n = 0 .. all skills, each design's prompt tokens; ``base_tokens`` is what the prompt holds anyway."""
    points = [CountPoint(0, base_tokens, base_tokens, "")]
    inline = index = base_tokens
    for n, s in enumerate(ordered(manifest, order), start=1):
        inline += s.tokens
        index += s.index_tokens + (manifest.header_tokens if n == 1 else 0)
        points.append(CountPoint(n, inline, index, s.name))
    return points


def largest_fitting(curve: list[CountPoint], window: int, design: str = "inline") -> int:
    """The largest n whose prompt (that design) is at most ``window`` tokens; -1 if not even n = 0 fits."""
    fitting = [p.n for p in curve if getattr(p, design) <= window]
    return max(fitting) if fitting else -1


def request_usd(tokens: int, price: ModelPrice, term: str = "uncached") -> float:
    """USD of ``tokens`` prompt tokens at one term of a price list (``uncached`` or ``read``)."""
    p = price.at(tokens)
    return tokens * p.base_input * p.multipliers[term] / MTOK


def served_window(recording: Recording) -> int:
    """The context window the recorded server ran with: its /props n_ctx, else the -c flag."""
    server = recording.provenance["server"]
    n_ctx = (server.get("props") or {}).get("n_ctx")
    if isinstance(n_ctx, int) and n_ctx > 0:
        return n_ctx
    flags = server.get("flags", [])
    for i, flag in enumerate(flags[:-1]):
        if flag in ("-c", "--ctx-size"):
            return int(flags[i + 1])
    raise ValueError("the recording does not say its context window (no props.n_ctx, no -c flag)")


def _step_title(p: CountPoint, window: int, price: ModelPrice, who: str = "") -> str:
    over = f"是窗口的 {p.inline / window:.1f} 倍" if p.inline > window else "放得下"
    return (f"{who or '前'} {p.n} 份技能:全文内联 {p.inline:,} token({over}),每次请求 ${request_usd(p.inline, price):.4f}"
            f"(整段命中缓存 ${request_usd(p.inline, price, 'read'):.4f});"
            f"<br>只放索引 {p.index:,} token,每次请求 ${request_usd(p.index, price):.4f}"
            f"(命中 ${request_usd(p.index, price, 'read'):.4f})· 价目:{price.name}")


def skills_count_figure(manifest: Manifest, window: int, price: ModelPrice, base_tokens: int = 0,
                        start: int | None = None, order: str = "smallest", who: str = "") -> go.Figure:
    """Prompt tokens of the first n skills, inline vs index, against the window (log scale).

    The slider moves n (skills added in ``order``; it starts at the most whole texts the window holds):
    two markers and the title give both designs' tokens and what one request would cost at ``price``
    with nothing cached and with all of it read.
    """
    curve = count_curve(manifest, base_tokens, order)
    xs = [p.n for p in curve]
    fig = go.Figure()
    def hover(p, v):
        return f"前 {p.n} 份(第 {p.n} 份:{p.last or '—'})<br>{v:,} token"
    fig.add_trace(go.Scatter(x=xs, y=[max(p.inline, 1) for p in curve], mode="lines", name="全部技能全文内联",
                             line=dict(color=INLINE_COLOR, width=2), hoverinfo="text",
                             hovertext=[hover(p, p.inline) for p in curve]))
    fig.add_trace(go.Scatter(x=xs, y=[max(p.index, 1) for p in curve], mode="lines", name="只放索引(名字 + 截短的描述 + 位置)",
                             line=dict(color=INDEX_COLOR, width=2), hoverinfo="text",
                             hovertext=[hover(p, p.index) for p in curve]))
    fits = largest_fitting(curve, window)
    first = (fits if fits >= 0 else curve[-1].n) if start is None else start
    here = curve[first]
    lines = len(fig.data)
    for p in curve:  # one pair of markers per n; the slider shows one of them (plotly.js, no kernel)
        fig.add_trace(go.Scatter(x=[p.n, p.n], y=[max(p.inline, 1), max(p.index, 1)], mode="markers",
                                 marker=dict(size=11, color=[INLINE_COLOR, INDEX_COLOR], line=dict(color="white", width=1)),
                                 name=f"n = {p.n}", showlegend=False, hoverinfo="skip", visible=p.n == first))
    steps = [dict(label=str(p.n), method="update", args=[
        {"visible": [True] * lines + [q.n == p.n for q in curve]}, {"title.text": _step_title(p, window, price, who)}])
        for p in curve]
    fig.add_hline(y=window, line=dict(color=WINDOW_COLOR, width=2, dash="dash"))
    fig.add_annotation(x=xs[-1], y=math.log10(window), xanchor="right", yanchor="bottom", showarrow=False,  # log axis: y in log10
                       text=f"服务器的上下文窗口 {window:,} token(全文内联最多放得下前 {max(fits, 0)} 份)")
    fig.update_layout(
        height=520, margin=dict(l=10, r=10, t=120, b=20),
        title=dict(text=_step_title(here, window, price, who), y=0.97, yanchor="top", font=dict(size=13)),
        xaxis=dict(title=f"技能份数 n({ORDERS[order]}累加)", range=[0, xs[-1] + 1]),
        yaxis=dict(title="system prompt 的 token 数(对数刻度)", type="log"),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, font=dict(size=11)),
        sliders=[dict(active=first, currentvalue=dict(prefix="技能份数 n = "), pad=dict(t=40), steps=steps)])
    return fig


# --- the break point of each index position ----------------------------------------------------

def part_of(block: str) -> str:
    """Which part of the prompt a block belongs to (the colours of the strip)."""
    if "skill" in block:
        return "skills"
    if block.startswith("memory"):
        return "memory"
    if block in ("base", "agents_md", "tools"):
        return block
    if block.startswith("template"):
        return "template"
    return "messages"


@dataclass(frozen=True)
class BreakView:
    """One request, its blocks in prompt order, and where the server's cached prefix stopped."""

    label: str
    session: str
    round: int
    prompt_tokens: int
    cached: int                            # measured cached_tokens (the server's own number)
    predicted: int                         # the calculator's read under the recorded rule
    blocks: tuple[tuple[str, int, int], ...]  # (name, start token, end token), tiling [0, prompt_tokens)
    break_block: str | None
    break_at: int | None
    before: str = ""
    after: str = ""

    @property
    def recomputed(self) -> int:
        return self.prompt_tokens - self.cached

    def block_span(self, name: str) -> tuple[int, int]:
        for b, s, e in self.blocks:
            if b == name:
                return s, e
        raise KeyError(f"{self.label}: no block {name!r}")


def first_changed_system(recording: Recording, session: str):
    """The first model call of ``session`` whose system message differs from the call before it."""
    calls = [c for c in recording.session_calls(session) if c.kind == "model_call"]
    for a, b in zip(calls, calls[1:]):
        if b.request["messages"][0] != a.request["messages"][0]:
            return b
    raise ValueError(f"{session}: the system message never changes, so no skill was added mid-session")


def first_with_added_skill(recording: Recording, session: str) -> int:
    """Round of the first request after a skill was added: the session's ``skill_added`` record
    (``first_request_with_it``) when the recorder wrote one, else the first system-message change."""
    added = (recording.session_info(session) or {}).get("skill_added") or {}
    if "first_request_with_it" in added:
        return int(added["first_request_with_it"])
    seq = first_changed_system(recording, session).seq
    return next(r.round for r in calculator.analyze(recording, sessions=session) if r.seq == seq)


def break_view(recording: Recording, session: str, label: str, round_no: int | None = None) -> BreakView:
    """The request of ``round_no`` (default: the first after a skill was added), block by block."""
    round_no = round_no or first_with_added_skill(recording, session)
    row = next(r for r in calculator.analyze(recording, sessions=session) if r.round == round_no)
    att = calculator.prepare(recording).attributions[row.seq]
    if row.measured is None:
        raise ValueError(f"{session} round {row.round}: the server reported no cached_tokens")
    return BreakView(label, session, row.round, row.prompt_tokens, row.measured, row.read,
                     tuple((b.name, b.start, b.end) for b in att.blocks), row.break_block, row.break_at,
                     row.before_break, row.after_break)


def _strip(view: BreakView) -> dict[str, list[tuple[int, int, list[str]]]]:
    """Consecutive blocks of the same part merged: part -> [(start, end, block names)].

    Once the conversation has started, the template's glue between messages counts as conversation,
    so the messages make one run instead of dozens of slivers."""
    out: dict[str, list] = {}
    run = None
    talking = False
    for name, s, e in view.blocks:
        part = part_of(name)
        talking = talking or part == "messages"
        if talking and part == "template":
            part = "messages"
        if run and run[0] == part and run[2] == s:
            run[2], run[3] = e, run[3] + [name]
            continue
        if run:
            out.setdefault(run[0], []).append((run[1], run[2], run[3]))
        run = [part, s, e, [name]]
    if run:
        out.setdefault(run[0], []).append((run[1], run[2], run[3]))
    return out


def _names(names: list[str]) -> str:
    return ", ".join(names) if len(names) <= 4 else f"{', '.join(names[:3])} … {names[-1]}(共 {len(names)} 块)"


def break_figure(views: list[BreakView]) -> go.Figure:
    """Per view two rows: the prompt's parts in token order, and what the server read back vs recomputed.

    An arrow marks the measured end of the cached prefix; hovering a part names its blocks, the
    recomputed bar says in which block the prefix broke and shows the text on both sides. The first
    menu shows both views or one of them; the second zooms to the break points.
    """
    def esc(t: str) -> str:
        return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", "⏎")

    fig = go.Figure()
    ys = {v.label: (f"{v.label} · prompt 的各部分", f"{v.label} · 读取 / 重算") for v in views}
    owner: list[int] = []  # the view each trace draws
    for i, v in enumerate(views):
        strip = _strip(v)
        for key, label, color in PARTS:
            spans = strip.get(key, [])
            if not spans:
                continue
            fig.add_trace(go.Bar(
                x=[e - s for s, e, _ in spans], base=[s for s, _, _ in spans], y=[ys[v.label][0]] * len(spans),
                orientation="h", name=label, legendgroup=key, showlegend=i == 0 or not any(
                    t.legendgroup == key for t in fig.data),
                marker=dict(color=color, line=dict(color="white", width=0.5)), hoverinfo="text",
                hovertext=[f"{label}:token {s:,}–{e:,}({e - s:,} 个)<br>{esc(_names(names))}" for s, e, names in spans]))
            owner.append(i)
        where = f"<br>前缀断在 {esc(v.break_block or '—')}(第 {v.break_at:,} 个 token)" if v.break_at is not None else ""
        text = f"<br>打断处前:…{esc(v.before)}<br>打断处后:{esc(v.after)}…" if v.break_at is not None else ""
        hover = f"{v.label}(第 {v.round} 轮):prompt {v.prompt_tokens:,},读取 {v.cached:,},重算 {v.recomputed:,}{where}{text}"
        for name, color, (s, e) in (("读取(来自缓存)", HIT_COLOR, (0, v.cached)),
                                    ("重算", FRESH_COLOR, (v.cached, v.prompt_tokens))):
            fig.add_trace(go.Bar(x=[e - s], base=[s], y=[ys[v.label][1]], orientation="h", name=name, legendgroup=name,
                                 showlegend=i == 0, marker=dict(color=color), hoverinfo="text", hovertext=[hover]))
            owner.append(i)
    for v in views:
        fig.add_annotation(x=v.cached, y=ys[v.label][1], text=f"断在 {v.break_block or '—'}", showarrow=True,
                           arrowhead=2, ax=40, ay=-28, font=dict(size=11))
    choices = [("两组对照", set(range(len(views))))] + [(v.label, {i}) for i, v in enumerate(views)]
    longest = max(v.prompt_tokens for v in views)
    zoom = min((v.cached for v in views), default=0)
    fig.update_layout(
        barmode="overlay", height=260 + 90 * len(views), margin=dict(l=10, r=10, t=60, b=110),
        xaxis=dict(title="prompt 里的位置(token,从左到右是发给服务器的顺序)", range=[0, longest * 1.02], tickformat=","),
        yaxis=dict(autorange="reversed", type="category", categoryorder="array",
                   categoryarray=[y for v in views for y in ys[v.label]]),
        legend=dict(orientation="h", yanchor="top", y=-0.4, x=0, font=dict(size=11)),
        updatemenus=[
            dict(type="buttons", direction="right", x=0, xanchor="left", y=1.2, yanchor="top", buttons=[
                dict(label=label, method="update", args=[{"visible": [o in shown for o in owner]}])
                for label, shown in choices]),
            dict(type="buttons", direction="right", x=1, xanchor="right", y=1.2, yanchor="top", buttons=[
                dict(label="全部", method="relayout", args=[{"xaxis.range": [0, longest * 1.02]}]),
                dict(label="打断处附近", method="relayout",
                     args=[{"xaxis.range": [max(0, zoom - 200), min(longest, max(v.cached for v in views) + 200)]}])])])
    return fig
