"""A7·4's review numbers and figure: self-review in the same session or a fresh reviewer child.

From the recordings:

- ``a7-4-review-smollm2-llamacpp`` (course server, scripted, one slot without host cache): every
  request's measured ``prompt_tokens`` / ``cached_tokens``, the calculator's prediction of each
  ``cached_tokens`` (the llama.cpp rule configured from the recording), and the same requests
  replayed under OpenAI's classic cache rule and priced with its dated list price (``CLOUD_MODEL``,
  ``data/prices/openai.yml``): a conversion of our tokens, not a bill;
- ``a7-4-review-live-qwen2.5-coder-0.5b-llamacpp`` (the live model writes the reviews): each review's
  text and whether it names the planted bug (``names_bug``, a deterministic keyword checker).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from chapters.a7.figures.delegation import Request, requests
from prefixlab.cache import calculator, pricing, rules
from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import Recording, load

SCRIPTED = "a7-4-review-smollm2-llamacpp"
LIVE = "a7-4-review-live-qwen2.5-coder-0.5b-llamacpp"
CLOUD_MODEL = "gpt-5-5"   # OpenAI's classic caching (automatic longest prefix, no write fee)
CLOUD_RULE = "openai"
VARIANTS = ("self", "fresh")
VARIANT_LABELS = {"self": "同一会话里自己评审", "fresh": "全新的评审子 agent"}
COLORS = {"read": "#1f77b4", "recomputed": "#ff7f0e"}


def scripted() -> Recording:
    return load(RECORDINGS / SCRIPTED)


def live() -> Recording:
    return load(RECORDINGS / LIVE)


# -- the scripted half: cost and placement ------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One request of a variant, with its user turn (1 task, 2 review request, 3 fix) and its cloud view."""
    request: Request
    turn: int
    cloud_read: int        # read under the cloud rule (calculator)
    cloud_usd: float       # its input priced at CLOUD_MODEL's list price

    @property
    def recomputed(self) -> int:
        return self.request.prompt_tokens - self.request.measured


@dataclass(frozen=True)
class Review:
    variant: str
    steps: list[Step]
    review: list[Step]     # the requests that produce the review (the agent's own, or the spawn and the child's)
    back: Step             # the parent's first request after the review

    def total(self, steps: list[Step] | None = None) -> dict:
        steps = self.steps if steps is None else steps
        return {"requests": len(steps), "prompt": sum(s.request.prompt_tokens for s in steps),
                "read": sum(s.request.measured for s in steps), "recomputed": sum(s.recomputed for s in steps),
                "cloud_read": sum(s.cloud_read for s in steps), "usd": sum(s.cloud_usd for s in steps)}


def user_turns(call) -> int:
    return sum(1 for m in call.request["messages"] if m.get("role") == "user")


def review_of(recording: Recording, variant: str) -> Review:
    """The requests of one variant (the agent's session and its reviewer child), split into review and return."""
    rows = requests(recording, variant)
    calls = {c.session: [] for c in recording.calls}
    for c in recording.calls:
        calls[c.session].append(c)
    sessions = sorted({r.session for r in rows})
    cloud = {r.seq: r for r in calculator.analyze(recording, CLOUD_RULE, sessions=sessions,
                                                  **rules.settings(CLOUD_RULE, model=CLOUD_MODEL))}
    seqs = [c for c in recording.calls if c.session in sessions]
    steps = []
    for row, call in zip(rows, seqs):
        assert (row.session, row.round) == (call.session, call.round)
        prediction = cloud[call.seq].prediction
        steps.append(Step(row, user_turns(call) if row.role == "parent" else 0, prediction.read,
                          pricing.request_cost(prediction, CLOUD_MODEL).total))
    children = [i for i, s in enumerate(steps) if s.request.role == "child"]
    if variant == "self":
        review = [s for s in steps if s.turn == 2]
        back = next(s for s in steps if s.turn == 3)
    else:
        first, last = children[0], children[-1]
        review = [steps[first - 1]] + steps[first:last + 1]   # the request that spawns, then the child's
        back = steps[last + 1]
    return Review(variant, steps, review, back)


def reviews(recording: Recording | None = None) -> dict[str, Review]:
    recording = recording or scripted()
    return {v: review_of(recording, v) for v in VARIANTS}


def price() -> pricing.ModelPrice:
    return pricing.model_price(CLOUD_MODEL)


def step_label(s: Step, review: Review) -> str:
    if s.request.role == "child":
        return f"评审子 agent 第 {s.request.round} 个请求"
    if s is review.back:
        return "父 agent 回来后的第一个请求"
    if s in review.review:
        return "父 agent 派出评审" if review.variant == "fresh" else "自己评审"
    return {1: "改代码", 2: "评审", 3: "修改"}[s.turn] + f"(第 {s.request.round} 轮)"


def review_figure(result: dict[str, Review]) -> go.Figure:
    """Each variant's requests from the review request on: read (measured) and recomputed, stacked."""
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.05,
                        subplot_titles=[VARIANT_LABELS[v] for v in VARIANTS])
    for col, v in enumerate(VARIANTS, start=1):
        r = result[v]
        start = r.steps.index(r.review[0])
        shown = r.steps[start - 1:]
        x = [f"{i}. {step_label(s, r)}" for i, s in enumerate(shown, start=start)]
        hover = [f"prompt {s.request.prompt_tokens:,} · 读取 {s.request.measured:,}(计算器 {s.request.predicted:,})"
                 f" · 重算 {s.recomputed:,}<br>云端({CLOUD_MODEL}):读取 {s.cloud_read:,},${s.cloud_usd:.5f}"
                 for s in shown]
        fig.add_trace(go.Bar(x=x, y=[s.request.measured for s in shown], name="从缓存读取(实测)",
                             marker_color=COLORS["read"], hovertext=hover, hoverinfo="text",
                             showlegend=col == 1, legendgroup="read"), row=1, col=col)
        fig.add_trace(go.Bar(x=x, y=[s.recomputed for s in shown], name="重算",
                             marker_color=COLORS["recomputed"], hovertext=hover, hoverinfo="text",
                             showlegend=col == 1, legendgroup="recomputed"), row=1, col=col)
    fig.update_layout(barmode="stack", height=420, margin=dict(t=60, b=150, l=60, r=20),
                      legend=dict(orientation="h", y=1.12, x=0))
    fig.update_xaxes(tickangle=-35, tickfont=dict(size=10))
    fig.update_yaxes(title_text="prompt token", row=1, col=1)
    return fig


# -- the live check -----------------------------------------------------------------------------------
# The fix written out: "+ 273.15", "add(s/ing) ... 273", "plus 273" ...
FIX = re.compile(r"(\+\s*273|\badd(?:s|ed|ing)?\b[^.\n]{0,20}273|\bplus\s+273)")
# ... unless "+ 273" is the one the review calls wrong ("should be - 273.15, not + 273.15")
WRONG_WAY = re.compile(r"\bnot\b[^.\n]{0,40}\+\s*273")


def verdict(text: str) -> str:
    """The review's verdict as the request asks for it: its first non-empty line says BUG or OK, not both
    ('' if neither, or both, as in an echo of the request's "BUG or OK")."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    first = lines[0].upper() if lines else ""
    has_bug, has_ok = bool(re.search(r"\bBUGS?\b", first)), bool(re.search(r"\bOK\b", first))
    return "BUG" if has_bug and not has_ok else "OK" if has_ok and not has_bug else ""


def names_bug(text: str) -> bool:
    """The checker: the review writes out the fix (kelvin = celsius + 273.15: "+ 273", "add ... 273",
    "plus 273") and does not call that the wrong way round. A keyword rule, deliberately simple: it reads
    words, not reasoning; the verdict (first line) is reported apart."""
    low = (text or "").lower()
    return bool(FIX.search(low)) and not WRONG_WAY.search(low)


@dataclass(frozen=True)
class LiveReview:
    condition: str
    seed: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    text: str               # the review (a tool call, if the model made one, as its JSON)
    verdict: str            # BUG, OK or '' (the first line is neither)
    named: bool


def live_reviews(recording: Recording | None = None) -> list[LiveReview]:
    recording = recording or live()
    out = []
    for info in recording.manifest["sessions"]:
        (call,) = recording.session_calls(info["id"])
        message = call.response["choices"][0]["message"]
        text = message.get("content") or ""
        for tc in message.get("tool_calls") or []:
            text += f"\n[tool call] {tc['function']['name']}({tc['function']['arguments']})"
        out.append(LiveReview(info["variant"], info["seed"], call.prompt_tokens, call.cached_tokens or 0,
                              call.response["usage"]["completion_tokens"], text.strip(), verdict(text), names_bug(text)))
    return out


def live_tally(items: list[LiveReview]) -> dict[str, dict]:
    """Per condition: runs, reviews that name the bug, the review request's prompt tokens (first run)."""
    out = {}
    for c in VARIANTS:
        mine = [r for r in items if r.condition == c]
        out[c] = {"runs": len(mine), "named": sum(r.named for r in mine),
                  "verdict": sum(bool(r.verdict) for r in mine), "bug_verdict": sum(r.verdict == "BUG" for r in mine),
                  "prompt": mine[0].prompt_tokens if mine else 0}
    return out
