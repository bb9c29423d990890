"""One recorded session billed by six providers (A8·4).

Recording ``a5-1-triggers-smollm2-llamacpp`` (A5·1), session ``reserve``: miniagent's default design,
compacting at "window minus reserve"; 13 requests, two of them summary requests. llama.cpp's numbers are
the server's own ``cached_tokens``; the five cloud providers' are the calculator's replay of the same
requests under each provider's cache rule (``prefixlab/cache/rules/``), priced at the dated tables in
``data/prices/``. The recorded clock is kept (the calculator's default for one day of one recording).
"""
from __future__ import annotations

from functools import lru_cache

import plotly.graph_objects as go

from prefixlab.cache import calculator, pricing, rules
from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill
# The six ways to bill, one list for the book: A9·3 prices a solved task with the same six.
from prefixlab.presenting.cost import PROVIDERS, Provider
from prefixlab.recording.format import Recording, load

NAME = "a5-1-triggers-smollm2-llamacpp"
SESSION = "reserve"


@lru_cache(maxsize=1)
def recording() -> Recording:
    return load(RECORDINGS / NAME)


def calls():
    """The session's recorded calls that have a response (the rows the calculator replays)."""
    return [c for c in recording().calls if c.session == SESSION and c.response is not None]


@lru_cache(maxsize=None)
def rows(rule: str, **settings) -> tuple:
    """The session's requests under ``rule`` (the calculator; llama.cpp: the server's own rule)."""
    extra = rules.settings(rule, model=next((p.model for p in PROVIDERS if p.rule == rule), None))
    extra.update(settings)
    return tuple(r for r in calculator.analyze(recording(), rule, sessions=[SESSION], **extra) if r.refused is None)


def reads(rule: str, **settings) -> list[int]:
    return [r.prediction.read for r in rows(rule, **settings)]


def writes(rule: str) -> list[int]:
    return [r.prediction.write for r in rows(rule)]


def recorded() -> list[int]:
    return [c.cached_tokens for c in calls()]


def prompts() -> list[int]:
    return [c.prompt_tokens for c in calls()]


def kinds() -> list[str]:
    return [c.kind for c in calls()]


def after_compaction() -> int:
    """Index (0-based, in the session) of the first ordinary request after the first summary request."""
    k = kinds()
    first = k.index("compaction")
    return next(i for i in range(first + 1, len(k)) if k[i] == "model_call")


def max_gap() -> float:
    t = [c.t for c in calls()]
    return max(b - a for a, b in zip(t, t[1:]))


@lru_cache(maxsize=1)
def costs() -> dict[str, pricing.CostBreakdown]:
    """Each cloud provider's price of the session (its own rule; outputs included)."""
    b = bill.bill(recording().path)
    return {p.rule: bill.price(b, p.model, sessions=[SESSION]) for p in PROVIDERS if p.model}


def no_cache_cost(p: Provider) -> float:
    """The same session with nothing read from a cache: every prompt token at the input price."""
    price = pricing.model_price(p.model)
    out = sum(c.response["usage"]["completion_tokens"] for c in calls())
    return (sum(prompts()) * price.base_input + out * float(price.output)) / 1e6


# How far each rule's facts are confirmed (data/prices/SOURCES.md has the details, fact by fact).
RULE_STATUS = {
    "llamacpp": "llama.cpp 源码(录制逐个复现)",
    "anthropic": "一手:platform.claude.com 的 prompt caching 页",
    "openai": "一手:developers.openai.com 的 prompt caching 指南",
    "deepseek": "一手:api-docs.deepseek.com 的 kv_cache 页;单元的间隔和寿命未公布",
    "kimi": "未确认:Moonshot 的公告没能打开(用的是转述);256 个 token 一块是第三方实测",
    "qwen": "一手:help.aliyun.com 的上下文缓存页;新旧两页的最低长度不一致",
}


def price_source(p: Provider) -> tuple[str, str, str]:
    """The price table's URL, the date it was read, and whether the row is the provider's own price."""
    table = pricing.load_table(pricing.model_price(p.model).provider)
    key = pricing.model_price(p.model).model
    third = table["models"].get(key, {}).get("source_quality") == "third-party"
    return table["source"]["url"], str(table["source"]["taken"]), "第三方(未确认)" if third else "一手"


def figure() -> go.Figure:
    fig = go.Figure()
    x = [f"{i + 1}{'·摘要' if k == 'compaction' else ''}" for i, k in enumerate(kinds())]
    fig.add_trace(go.Bar(x=x, y=prompts(), name="输入 token", marker_color="#e5e7eb"))
    for p in PROVIDERS:
        y = recorded() if p.model is None else reads(p.rule)  # the local server: its own measured reads
        fig.add_trace(go.Scatter(x=x, y=y, name=p.label, mode="lines+markers"))
    fig.update_layout(title=f"同一个会话的读取 token:{NAME} · {SESSION}", xaxis_title="请求(按发出的顺序)",
                      yaxis_title="token", height=420, legend_title_text="读取", template="plotly_white")
    return fig
