"""What a request would cost under a provider's list prices, term by term.

Every term is ``tokens x base price x multiplier`` so the book can explain each one on click:

    uncached  x 1       (Anthropic input_tokens; OpenAI uncached input)
    write_5m  x 1.25    write_1h x 2    (Anthropic cache writes; OpenAI: x 1, no write fee,
                                         or cache_write / input for GPT-5.6 families)
    read      x 0.1     (Anthropic, 0.025 on Fable/Mythos 5.1; OpenAI cached_input / input)
    output    x 1 at the output price (only if you pass output_tokens)

Prices live in ``data/prices/<provider>.yml`` with their source and the date we took them.
The token counts come from *our* model's tokenizer and cache rule, so a cost is always a conversion
("what these tokens would cost at that price list"), never a bill; every breakdown says so.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

import yaml

from prefixlab.paths import PRICES

from .models import normalize_model
from .rules.base import Prediction

PROVIDERS = ("anthropic", "openai")
MTOK = 1_000_000

CONVERSION_NOTE = (
    "Conversion, not a bill: the token counts come from our model's tokenizer and the chosen cache "
    "rule; {provider}'s own tokenizer and cache would count differently.")


@dataclass(frozen=True)
class ModelPrice:
    provider: str
    model: str
    name: str
    base_input: float            # USD per MTok
    output: float | None         # USD per MTok (None = not recorded)
    multipliers: dict            # uncached / write_5m / write_1h / read
    source: str                  # where the numbers come from, with the date we took them

    def price(self, term: str) -> float:
        """USD per MTok of one term (base x multiplier)."""
        return self.base_input * self.multipliers[term]


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

    def term(self, name: str) -> Term:
        for t in self.terms:
            if t.name == name:
                return t
        raise KeyError(f"no term {name!r}; terms: {', '.join(t.name for t in self.terms)}")

    def explain(self) -> str:
        lines = [t.explain() for t in self.terms]
        lines.append(f"total = ${self.total:.6f}  ({self.model}; {self.source})")
        return "\n".join(lines + list(self.notes))


@lru_cache(maxsize=None)
def load_table(provider: str) -> dict:
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r}; known providers: {', '.join(PROVIDERS)}")
    path = PRICES / f"{provider}.yml"
    with open(path, encoding="utf-8") as f:
        table = yaml.safe_load(f)
    if not isinstance(table, dict) or "models" not in table or "source" not in table:
        raise ValueError(f"{path} is not a price table (needs 'source' and 'models')")
    return table


def known_models(provider: str | None = None) -> list[str]:
    providers = [provider] if provider else list(PROVIDERS)
    return sorted(m for p in providers for m in load_table(p)["models"])


def model_price(model: str, provider: str | None = None) -> ModelPrice:
    """Look a model up in the price tables; unknown models raise with the list of known ones."""
    key = normalize_model(model)
    if provider is None:
        provider = "anthropic" if key.startswith("claude") else "openai" if key.startswith("gpt") else None
        if provider is None:
            raise ValueError(f"unknown model {model!r}; known models: {', '.join(known_models())}")
    table = load_table(provider)
    if key not in table["models"] and provider == "anthropic":
        key = normalize_model(model, provider)
    if key not in table["models"]:
        raise ValueError(f"unknown {provider} model {model!r}; known models: {', '.join(known_models(provider))}")
    row = table["models"][key]
    src = table["source"]
    source = f"{row.get('source', src['url'])}, taken {src['taken']}"
    if provider == "anthropic":
        mult = {**table["multipliers"], **row.get("multipliers", {})}
        return ModelPrice(provider, key, row["name"], float(row["base_input"]), row.get("output"), mult, source)
    base = float(row["input"])
    mult = {"uncached": 1.0, "read": row["cached_input"] / base,
            # classic caching: no write fee, written tokens are ordinary input
            "write_5m": row["cache_write"] / base if row.get("cache_write") else 1.0}
    mult["write_1h"] = mult["write_5m"]
    return ModelPrice(provider, key, row["name"], base, row.get("output"), mult, source)


def request_cost(prediction: Prediction, model: str, *, output_tokens: int = 0,
                 local_write_ttl: str = "5m", provider: str | None = None) -> CostBreakdown:
    """Price one prediction. For rules without a TTL split (local servers, OpenAI), ``write`` tokens
    are priced as writes with ``local_write_ttl`` ("5m" or "1h")."""
    if not isinstance(prediction, Prediction):
        raise ValueError(f"expected a Prediction, got {type(prediction).__name__}")
    if output_tokens < 0:
        raise ValueError(f"output_tokens must be >= 0, got {output_tokens}")
    if local_write_ttl not in ("5m", "1h"):
        raise ValueError(f"local_write_ttl must be '5m' or '1h', got {local_write_ttl!r}")
    p = model_price(model, provider)
    if prediction.write_5m or prediction.write_1h:
        w5, w1 = prediction.write_5m, prediction.write_1h
    else:
        w5, w1 = (prediction.write, 0) if local_write_ttl == "5m" else (0, prediction.write)
    terms = [Term("uncached", prediction.uncached, p.base_input, p.multipliers["uncached"]),
             Term("write_5m", w5, p.base_input, p.multipliers["write_5m"]),
             Term("write_1h", w1, p.base_input, p.multipliers["write_1h"]),
             Term("read", prediction.read, p.base_input, p.multipliers["read"])]
    if output_tokens:
        if p.output is None:
            raise ValueError(f"no output price recorded for {p.model}; pass output_tokens=0")
        terms.append(Term("output", output_tokens, float(p.output), 1.0))
    notes = [CONVERSION_NOTE.format(provider=p.provider.capitalize() if p.provider != "openai" else "OpenAI")]
    if prediction.rule and prediction.rule.lower() != p.provider:
        notes.append(f"Token counts follow the {prediction.rule} cache rule, priced with {p.name}'s list prices.")
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
    summed = []
    for i, first in enumerate(costs[0].terms):
        summed.append(Term(first.name, sum(c.terms[i].tokens for c in costs), first.base_price, first.multiplier))
    return CostBreakdown(costs[0].model, tuple(summed), costs[0].source, costs[0].notes)


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
        return {a.name: (a.usd, b.usd) for a, b in zip(self.refresh.terms, self.no_refresh.terms)}


def refresh_vs_no_refresh(refresh: Iterable[Prediction], no_refresh: Iterable[Prediction], model: str,
                          **kwargs) -> Comparison:
    """Price two groups of requests (e.g. the refresh and frozen groups) with the same table."""
    return Comparison(total_cost(refresh, model, **kwargs), total_cost(no_refresh, model, **kwargs))
