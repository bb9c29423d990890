"""What a request would cost under a provider's list prices, term by term.

Every term is ``tokens x base price x multiplier`` so the book can explain each one on click:

    uncached   x 1      (Anthropic input_tokens; OpenAI uncached input)
    write_5m   x 1.25   write_1h x 2    (Anthropic cache writes)
    write_30m  x cache_write / input    (OpenAI GPT-5.6 and later: writes are billed)
    read       x 0.1    (Anthropic; 0.05 or 0.025 on some models; OpenAI cached_input / input)
    output     x 1 at the output price (only if you pass output_tokens)

Prices live in ``data/prices/<provider>.yml`` with their source and the date we took them.

A price only means something together with the cache rule that produced the token counts, so
``request_cost`` prices a prediction only under the rule the model's provider really uses:
Anthropic's rule for Claude, OpenAI's classic rule for models before GPT-5.6, OpenAI's breakpoint
rule for GPT-5.6 and later. Rows of a local server's rule (llama.cpp, mlx, vLLM) are refused: run
the same requests under the cloud rule instead (``calculator.analyze(rec, "anthropic", ...)``).
The token counts still come from *our* model's tokenizer, so a cost is a conversion ("what these
tokens would cost at that price list"), never a bill; every breakdown says so.
"""
from __future__ import annotations

import re

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Iterable, Sequence

from . import rules
from .models import PROVIDERS, known_models, load_table, resolve, stale_tables, status_note  # noqa: F401
from .rules.base import Prediction

MTOK = 1_000_000

CONVERSION_NOTE = (
    "Conversion, not a bill: the token counts come from our model's tokenizer and the chosen cache "
    "rule; {provider}'s own tokenizer and cache would count differently.")


class PricingError(ValueError):
    """A prediction priced with a model whose provider caches differently."""


@dataclass(frozen=True)
class LongContext:
    """A second price tier: the whole request is priced at it above ``above`` prompt tokens."""
    above: int
    base_input: float
    output: float | None
    multipliers: dict


@dataclass(frozen=True)
class ModelPrice:
    provider: str
    model: str
    name: str
    base_input: float            # USD per MTok
    output: float | None         # USD per MTok (None = not recorded)
    multipliers: dict            # uncached / write_* / read
    source: str                  # where the numbers come from, with the date we took them
    rule: str = ""               # the cache rule (NAME in prefixlab.cache.rules) this provider uses here
    status: str = "current"
    long_context: LongContext | None = None

    def price(self, term: str) -> float:
        """USD per MTok of one term (base x multiplier)."""
        return self.base_input * self.multipliers[term]

    def at(self, prompt_tokens: int) -> "ModelPrice":
        """The prices that apply to a request of ``prompt_tokens`` (the long-context tier above its limit)."""
        lc = self.long_context
        if lc is None or prompt_tokens <= lc.above:
            return self
        return replace(self, name=f"{self.name}, prompt > {lc.above:,} tokens", base_input=lc.base_input,
                       output=lc.output, multipliers=lc.multipliers, long_context=None)


@dataclass(frozen=True)
class Term:
    name: str
    tokens: int
    base_price: float   # USD per MTok
    multiplier: float

    @property
    def usd(self) -> float:
        return self.tokens * self.base_price * self.multiplier / MTOK

    def explain(self) -> str:
        return (f"{self.name}: {self.tokens:,} tokens x ${self.base_price:g}/MTok x {self.multiplier:g}"
                f" = ${self.usd:.6f}")


@dataclass(frozen=True)
class CostBreakdown:
    model: str
    terms: tuple[Term, ...]
    source: str
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def total(self) -> float:
        return sum(t.usd for t in self.terms)

    def usd_of(self, name: str) -> float:
        """USD of every term called ``name`` (a long-context tier adds a second one)."""
        return sum(t.usd for t in self.terms if t.name == name)

    def term(self, name: str) -> Term:
        for t in self.terms:
            if t.name == name:
                return t
        raise KeyError(f"no term {name!r}; terms: {', '.join(t.name for t in self.terms)}")

    def explain(self) -> str:
        lines = [t.explain() for t in self.terms]
        lines.append(f"total = ${self.total:.6f}  ({self.model}; {self.source})")
        return "\n".join(lines + list(self.notes))


def _anthropic_price(key: str, row: dict, table: dict, source: str) -> ModelPrice:
    mult = {**table["multipliers"], **row.get("multipliers", {})}
    lc = row.get("long_context")
    long_context = None
    if lc:
        base = float(lc["base_input"])
        long_context = LongContext(int(lc["above_prompt_tokens"]), base, lc.get("output"),
                                   {"uncached": 1.0, **{t: lc[t] / base for t in ("write_5m", "write_1h", "read")}})
    return ModelPrice("anthropic", key, row["name"], float(row["base_input"]), row.get("output"), mult, source,
                      rules.anthropic.NAME, row.get("status", "current"), long_context)


def _openai_multipliers(row: dict) -> dict:
    base = float(row["input"])
    mult = {"uncached": 1.0, "read": row["cached_input"] / base}
    if row.get("cache_write"):
        mult["write_30m"] = row["cache_write"] / base
    return mult


def _openai_price(key: str, row: dict, source: str) -> ModelPrice:
    scheme = row.get("cache_scheme", "classic")
    rule = rules.openai_breakpoints.NAME if scheme == "breakpoints" else rules.openai.NAME
    if scheme == "breakpoints" and not row.get("cache_write"):
        raise ValueError(f"{key}: a model with breakpoint caching needs a cache_write price")
    lc = row.get("long_context")
    long_context = None
    if lc:
        long_context = LongContext(int(lc["above_input_tokens"]), float(lc["input"]), lc.get("output"),
                                   _openai_multipliers(lc))
    return ModelPrice("openai", key, row["name"], float(row["input"]), row.get("output"), _openai_multipliers(row),
                      source, rule, row.get("status", "current"), long_context)


def _other_price(provider: str, key: str, row: dict, source: str) -> ModelPrice:
    """DeepSeek, Kimi, Qwen: input (a miss), cached_input (a hit), cache_write (a billed write) per row."""
    base = float(row["input"])
    mult = {"uncached": 1.0, "read": row["cached_input"] / base}
    if row.get("cache_write"):
        mult["write_5m"] = row["cache_write"] / base
    if row.get("cache_write_1h"):
        mult["write_1h"] = row["cache_write_1h"] / base
    if row.get("explicit_cached_input"):
        mult["read_explicit"] = row["explicit_cached_input"] / base
    return ModelPrice(provider, key, row["name"], base, row.get("output"), mult, source, provider,
                      row.get("status", "current"))


PROVIDER_NAMES = {"anthropic": "Anthropic", "openai": "OpenAI", "deepseek": "DeepSeek", "kimi": "Kimi (Moonshot)",
                  "qwen": "Alibaba Cloud Model Studio (Qwen)"}


PUBLIC_URL = re.compile(r"https?://[^\s;,()'\"]+")
REPO_AT_COMMIT = re.compile(r"[\w.-]+/[\w.-]+@[0-9a-f]{7,40}:[\w./-]+")  # repo@commit:path


def printed_source(provider: str, row: dict, table: dict) -> str:
    """The source a reader can check: a public URL, the date it was taken and the price file.

    A row's ``source`` is a research note (it may name stored copies by internal id). Printed is its
    first public URL of a model or pricing page, else its first ``repo@commit:path``, else the table's
    own URL (the provider's pricing page). The note itself stays in the price file.
    """
    note = str(row.get("source", ""))
    urls = [u.rstrip(".") for u in PUBLIC_URL.findall(note) if "models/" in u or "pricing" in u]
    url = (urls + REPO_AT_COMMIT.findall(note) + [table["source"]["url"]])[0]
    return f"{url}, taken {table['source']['taken']}, data/prices/{provider}.yml"


@lru_cache(maxsize=None)  # total_cost prices every request of a recording with the same model
def model_price(model: str, provider: str | None = None) -> ModelPrice:
    """Look a model up by name, alias or dated id; unknown models raise with the list of known ones."""
    provider, key = resolve(model, provider)
    table = load_table(provider)
    row = table["models"][key]
    source = printed_source(provider, row, table)
    if provider == "anthropic":
        return _anthropic_price(key, row, table, source)
    if provider == "openai":
        return _openai_price(key, row, source)
    return _other_price(provider, key, row, source)


def _check_rule(prediction: Prediction, price: ModelPrice) -> None:
    """Refuse token counts that come from another cache than the one this model really has."""
    expected = rules.get(price.rule)
    if prediction.rule in (expected.RULE, getattr(expected, "RULE_EXPLICIT", None)):
        return
    local = next((m for m in rules.RULES.values() if m.RULE == prediction.rule and m.PROVIDER is None), None)
    if local is not None:
        raise PricingError(
            f"these token counts follow the {prediction.rule} rule (a local server's cache); "
            f"{price.name} is cached by {price.provider}'s rule, which reads, writes and expires "
            f"differently. Replay the requests under the {expected.NAME!r} rule and price those "
            f"(calculator.analyze(recording, {expected.NAME!r}, ...)).")
    raise PricingError(f"{price.name} is cached by the {expected.NAME!r} rule, but these token counts come "
                       f"from the {prediction.rule or 'unnamed'} rule; run {expected.NAME!r} instead.")


def request_cost(prediction: Prediction, model: str, *, output_tokens: int = 0,
                 provider: str | None = None) -> CostBreakdown:
    """Price one prediction of the rule ``model``'s provider uses (see the module docstring)."""
    if not isinstance(prediction, Prediction):
        raise ValueError(f"expected a Prediction, got {type(prediction).__name__}")
    if output_tokens < 0:
        raise ValueError(f"output_tokens must be >= 0, got {output_tokens}")
    listed = model_price(model, provider)
    _check_rule(prediction, listed)
    p = listed.at(prediction.total)
    read_term = "read"
    if p.provider == "anthropic":
        writes = [("write_5m", prediction.write_5m), ("write_1h", prediction.write_1h)]
    elif p.provider == "kimi":
        writes = [(name, tokens) for name, tokens in (("write_5m", prediction.write_5m),
                                                      ("write_1h", prediction.write_1h)) if tokens or name == "write_5m"]
    elif p.provider == "qwen" and prediction.rule == rules.qwen.RULE_EXPLICIT:
        writes, read_term = [("write_5m", prediction.write)], "read_explicit"
    elif p.provider in ("deepseek", "qwen"):
        writes = []  # no write fee: a written token costs the normal input price
    elif "write_30m" in p.multipliers:
        writes = [("write_30m", prediction.write)]
    else:
        writes = []  # classic OpenAI caching: written tokens cost the normal input price
    terms = [Term("uncached", prediction.uncached if writes else prediction.fresh, p.base_input, 1.0),
             *(Term(name, tokens, p.base_input, p.multipliers[name]) for name, tokens in writes),
             Term("read", prediction.read, p.base_input, p.multipliers[read_term])]
    if output_tokens:
        if p.output is None:
            raise ValueError(f"no output price recorded for {p.model}; pass output_tokens=0")
        terms.append(Term("output", output_tokens, float(p.output), 1.0))
    notes = [CONVERSION_NOTE.format(provider=PROVIDER_NAMES[p.provider]),
             f"Cache rule: {p.rule} ({rules.get(p.rule).SOURCE})."]
    if p is not listed:
        notes.append(f"Long-context prices: the prompt has more than {listed.long_context.above:,} tokens.")
    if listed.status != "current":
        notes.append(status_note(load_table(p.provider)["models"][p.model]))
    return CostBreakdown(p.model, tuple(terms), p.source, tuple(notes))


def total_cost(predictions: Iterable[Prediction], model: str, *, output_tokens: Sequence[int] | None = None,
               **kwargs) -> CostBreakdown:
    """Sum of request_cost over many requests, term by term."""
    preds = list(predictions)
    outs = list(output_tokens) if output_tokens is not None else [0] * len(preds)
    if len(outs) != len(preds):
        raise ValueError(f"{len(outs)} output_tokens values for {len(preds)} predictions")
    costs = [request_cost(p, model, output_tokens=o, **kwargs) for p, o in zip(preds, outs)]
    if not costs:
        raise ValueError("no predictions to price")
    # One term per (name, price): requests above a long-context limit add terms at the other price.
    summed: dict[tuple, int] = {}
    for cost in costs:
        for t in cost.terms:
            key = (t.name, t.base_price, t.multiplier)
            summed[key] = summed.get(key, 0) + t.tokens
    notes = list(dict.fromkeys(n for c in costs for n in c.notes))
    return CostBreakdown(costs[0].model, tuple(Term(n, k, b, m) for (n, b, m), k in summed.items()),
                         costs[0].source, tuple(notes))


@dataclass(frozen=True)
class Comparison:
    refresh: CostBreakdown
    no_refresh: CostBreakdown

    @property
    def ratio(self) -> float:
        """How many times the refresh group costs the no-refresh group."""
        if self.no_refresh.total == 0:
            raise ZeroDivisionError("the no-refresh group costs nothing; a ratio is undefined")
        return self.refresh.total / self.no_refresh.total

    @property
    def difference(self) -> float:
        return self.refresh.total - self.no_refresh.total

    def by_term(self) -> dict[str, tuple[float, float]]:
        names = dict.fromkeys(t.name for t in (*self.refresh.terms, *self.no_refresh.terms))
        return {n: (self.refresh.usd_of(n), self.no_refresh.usd_of(n)) for n in names}


def refresh_vs_no_refresh(refresh: Iterable[Prediction], no_refresh: Iterable[Prediction], model: str,
                          **kwargs) -> Comparison:
    """Price two groups of requests (e.g. the refresh and frozen groups) with the same table."""
    return Comparison(total_cost(refresh, model, **kwargs), total_cost(no_refresh, model, **kwargs))
