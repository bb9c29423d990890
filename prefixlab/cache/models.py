"""Cloud model names: how the price tables key them, which id means which model, and its status.

The tables are ``data/prices/<provider>.yml``; each row may list ``aliases`` (Anthropic's dated
snapshot ids, e.g. ``claude-haiku-4-5-20251001``) and ``snapshots`` (OpenAI's dated ids, e.g.
``gpt-5.5-2026-04-23``). ``resolve`` turns any of those spellings into the row's key.
"""
from __future__ import annotations

from datetime import date
from functools import lru_cache

from prefixlab.paths import PRICES

from .price_table import read_minimums, read_table

PROVIDERS = ("anthropic", "openai", "deepseek", "kimi", "qwen")
FAMILY_PREFIX = {"anthropic": "claude-", "openai": "gpt-", "deepseek": "deepseek-", "kimi": "kimi-",
                 "qwen": "qwen"}


def normalize_model(name: str, provider: str | None = None) -> str:
    """'Claude Haiku 4.5' / 'claude-haiku-4.5' -> 'claude-haiku-4-5'; 'GPT-5.4' -> 'gpt-5-4'.

    With ``provider="anthropic"`` a name without the family ('haiku-4.5') gets the 'claude-' prefix
    every Anthropic key has.
    """
    key = "-".join(str(name).strip().lower().replace(".", "-").split())
    if provider == "anthropic" and not key.startswith("claude-"):
        key = "claude-" + key
    return key


@lru_cache(maxsize=None)
def load_table(provider: str) -> dict:
    """The price table of one provider, as written in its YAML file."""
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r}; known providers: {', '.join(PROVIDERS)}")
    return read_table(PRICES / f"{provider}.yml", provider)  # checked: a bad price names file, model, field


def guess_provider(name: str) -> str | None:
    key = normalize_model(name)
    return next((p for p, prefix in FAMILY_PREFIX.items() if key.startswith(prefix)), None)


@lru_cache(maxsize=None)
def _ids(provider: str) -> dict[str, str]:
    """Every spelling a row answers to (normalized) -> the row's key."""
    out = {}
    for key, row in load_table(provider)["models"].items():
        out[key] = key
        for other in [*(row.get("aliases") or ()), *(row.get("snapshots") or ()), row.get("api_id") or key]:
            out[normalize_model(other)] = key
    return out


def known_models(provider: str | None = None) -> list[str]:
    providers = [provider] if provider else list(PROVIDERS)
    return sorted(m for p in providers for m in load_table(p)["models"])


def resolve(name: str, provider: str | None = None) -> tuple[str, str]:
    """(provider, key) of a model name, alias or dated id; unknown names raise with the known keys."""
    provider = provider or guess_provider(name)
    if provider is None:
        raise ValueError(f"unknown model {name!r}; known models: {', '.join(known_models())}")
    table, ids = load_table(provider), _ids(provider)
    for candidate in (normalize_model(name), normalize_model(name, provider)):
        if candidate in ids:
            return provider, ids[candidate]
    hint = ""
    for section in ("unverified_models", "incomplete_models"):
        if normalize_model(name, provider) in (table.get(section) or {}):
            hint = (f" ({name} is listed under {section} in data/prices/{provider}.yml: "
                    f"{'only third parties document it' if section == 'unverified_models' else 'a price we need is not published where we could cite it'})")
    raise ValueError(f"unknown {provider} model {name!r}{hint}; known models: {', '.join(known_models(provider))}")


def status_note(row: dict) -> str:
    """One line on a model that is not current ('' for a current model)."""
    status = row.get("status", "current")
    if status in ("current", None):
        return ""
    when = row.get("retired_on") or row.get("shutdown_date") or row.get("tentative_retirement")
    text = f"{row.get('name', '?')} is {status}" + (f" (date: {when})" if when else "")
    if row.get("status_source"):
        text += f"; status from a {row['status_source']} source"
    if status == "retired":
        text += ": the API no longer serves it, so this prices a model nobody can call today"
    return text


def table_age_days(provider: str, today: date | None = None) -> int:
    taken = date.fromisoformat(str(load_table(provider)["source"]["taken"]))
    return ((today or date.today()) - taken).days


def stale_tables(today: date | None = None, max_age_days: int = 90) -> list[str]:
    """Warnings for price tables taken more than ``max_age_days`` ago (prices change)."""
    out = []
    for provider in PROVIDERS:
        age = table_age_days(provider, today)
        if age > max_age_days:
            out.append(f"data/prices/{provider}.yml was taken {age} days ago (more than {max_age_days}); "
                       f"re-check it against {load_table(provider)['source']['url']}")
    return out


@lru_cache(maxsize=None)
def anthropic_minimums() -> dict[str, dict[str, int]]:
    """Anthropic's minimum cacheable prompt length per model, per dated table (newest first)."""
    return read_minimums(PRICES / "anthropic-minimums.yml")


if __name__ == "__main__":  # the book build calls this: warn, never fail
    import sys

    for line in stale_tables():
        print(f"WARNING: {line}", file=sys.stderr)
