"""Read a price table (``data/prices/<provider>.yml``) and check every field pricing reads.

A price table is edited by hand when prices change, so a typo must never turn into a silently
wrong cost: a price that is not a number, zero, negative, NaN or infinite, YAML that does not
parse, a missing or misspelled field -- each is refused on load with one message naming the file,
the model and the field. ``anthropic-minimums.yml`` (minimum cacheable prompt lengths) is checked
the same way.
"""
from __future__ import annotations

import math
from datetime import date
from pathlib import Path

import yaml


class PriceTableError(ValueError):
    """A price table that cannot be used; the message names the file, the model and the field."""


# The fields a row may have. Prices are USD per million tokens; the rest is documentation.
_DOCS = {"name", "status", "released", "retired_on", "retirement_not_before", "tentative_retirement",
         "shutdown_date", "replacement", "api_id", "aliases", "snapshots", "source", "source_quality",
         "status_source", "note", "listed", "listed_rounded", "output_third_party"}
FIELDS = {
    "anthropic": {"base_input", "output", "multipliers", "long_context"} | _DOCS,
    "openai": {"input", "cached_input", "cache_write", "cache_write_12h", "output", "cache_scheme",
               "long_context"} | _DOCS,
    # providers priced as input / cached_input (a hit) / cache_write (a billed write) / output
    "deepseek": {"input", "cached_input", "output"} | _DOCS,
    "kimi": {"input", "cached_input", "cache_write", "cache_write_1h", "output"} | _DOCS,
    "qwen": {"input", "cached_input", "explicit_cached_input", "cache_write", "output"} | _DOCS,
}
LONG_CONTEXT = {
    "anthropic": ({"above_prompt_tokens", "base_input", "write_5m", "write_1h", "read"}, {"output"}),
    "openai": ({"above_input_tokens", "input", "cached_input"}, {"cache_write", "output"}),
}
MULTIPLIERS = ("uncached", "write_5m", "write_1h", "read")
SCHEMES = ("classic", "breakpoints")


def read_yaml(path: Path):
    """The YAML document in ``path``; unreadable, non-UTF-8 or broken YAML is a PriceTableError."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise PriceTableError(f"{path}: cannot read the price table ({err.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise PriceTableError(f"{path}:{line}: not UTF-8 text (byte 0x{data[err.start]:02x})") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(err, "problem", None) or str(err)
        raise PriceTableError(f"{where}: not valid YAML ({problem})") from None


def read_table(path: Path, provider: str) -> dict:
    """The price table of ``provider`` in ``path``, checked (see the module docstring)."""
    table = read_yaml(path)
    check_table(table, path, provider)
    return table


def _positive(value, what: str, where: str, kind: str = "price in USD per MTok") -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PriceTableError(f"{where}: field {what} should be a number ({kind}), got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise PriceTableError(f"{where}: field {what} should be a positive, finite {kind}, got {value!r}")


def _whole(value, what: str, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise PriceTableError(f"{where}: field {what} should be a positive whole number of tokens, got {value!r}")


def _mapping(value, what: str, where: str) -> dict:
    if not isinstance(value, dict):
        raise PriceTableError(f"{where}: field {what} should be a mapping, got {type(value).__name__}")
    return value


def _require(row: dict, names, where: str, prefix: str = "") -> None:
    for name in names:
        if row.get(name) is None:
            raise PriceTableError(f"{where}: field {prefix}{name} is missing")


def check_table(table, path: Path, provider: str) -> None:
    """Refuse a table with a field pricing would misread; see the module docstring."""
    if not isinstance(table, dict) or "models" not in table or "source" not in table:
        raise PriceTableError(f"{path} is not a price table (needs 'source' and 'models')")
    source = _mapping(table["source"], "source", str(path))
    _require(source, ("url", "taken"), str(path), "source.")
    try:
        date.fromisoformat(str(source["taken"]))
    except ValueError:
        raise PriceTableError(f"{path}: field source.taken should be a date (YYYY-MM-DD), "
                              f"got {source['taken']!r}") from None
    if provider == "anthropic":
        multipliers = _mapping(table.get("multipliers"), "multipliers", str(path))
        for term in MULTIPLIERS:
            _require(multipliers, (term,), str(path), "multipliers.")
            _positive(multipliers[term], f"multipliers.{term}", str(path), "multiplier")
    models = _mapping(table["models"], "models", str(path))
    if not models:
        raise PriceTableError(f"{path}: field models is empty")
    for key, row in models.items():
        check_row(key, row, f"{path}: model {key}", provider)
    for section in ("unverified_models", "incomplete_models"):  # listed by name only, never priced
        _mapping(table.get(section) or {}, section, str(path))


def check_row(key: str, row, where: str, provider: str) -> None:
    """One model's row: the prices it needs, each a positive finite number, and no unknown field."""
    row = _mapping(row, "(the row)", where)
    unknown = sorted(str(k) for k in row if k not in FIELDS[provider])
    if unknown:
        raise PriceTableError(f"{where}: unknown field {unknown[0]!r} (a misspelling, or an unquoted comma "
                              f"in a value; known fields: {', '.join(sorted(FIELDS[provider] - _DOCS))}, ...)")
    if not isinstance(row.get("name"), str):
        raise PriceTableError(f"{where}: field name should be the model's name, got {row.get('name')!r}")
    for field in ("aliases", "snapshots"):
        if not isinstance(row.get(field) or [], list):
            raise PriceTableError(f"{where}: field {field} should be a list of model ids, got {row[field]!r}")
    if provider == "anthropic":
        _require(row, ("base_input",), where)
        prices = ["base_input", "output"]
        for term, value in _mapping(row.get("multipliers") or {}, "multipliers", where).items():
            if term not in MULTIPLIERS:
                raise PriceTableError(f"{where}: field multipliers.{term}: unknown term "
                                      f"(known: {', '.join(MULTIPLIERS)})")
            _positive(value, f"multipliers.{term}", where, "multiplier")
    elif provider != "openai":
        _require(row, ("input", "cached_input"), where)
        prices = sorted(FIELDS[provider] - _DOCS)
    else:
        _require(row, ("input", "cached_input"), where)
        prices = ["input", "cached_input", "cache_write", "cache_write_12h", "output"]
        scheme = row.get("cache_scheme", "classic")
        if scheme not in SCHEMES:
            raise PriceTableError(f"{where}: field cache_scheme should be one of {', '.join(SCHEMES)}, got {scheme!r}")
        if scheme == "breakpoints" and row.get("cache_write") is None:
            raise PriceTableError(f"{where}: field cache_write is missing (a model with breakpoint caching "
                                  "bills its writes)")
    for field in prices:
        if row.get(field) is not None:  # output may be null: not recorded
            _positive(row[field], field, where)
    if row.get("long_context") is not None:
        lc = _mapping(row["long_context"], "long_context", where)
        needed, optional = LONG_CONTEXT[provider]
        _require(lc, sorted(needed), where, "long_context.")
        for field, value in lc.items():
            if field not in needed | optional:
                raise PriceTableError(f"{where}: unknown field long_context.{field}")
            if field.startswith("above_"):
                _whole(value, f"long_context.{field}", where)
            elif value is not None:
                _positive(value, f"long_context.{field}", where)


def read_minimums(path: Path) -> dict[str, dict[str, int]]:
    """Anthropic's minimum cacheable prompt length per model, per dated table (newest first)."""
    doc = read_yaml(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("tables"), dict) or not doc["tables"]:
        raise PriceTableError(f"{path}: needs 'tables', a mapping of dated tables")
    out = {}
    for date_, table in doc["tables"].items():
        where = f"{path}: table {date_}"
        models = _mapping(_mapping(table, "(the table)", where).get("models") or {}, "models", where)
        for model, tokens in models.items():
            _whole(tokens, "minimum", f"{where}: model {model}")
        if models:
            out[str(date_)] = dict(models)
    if not out:
        raise PriceTableError(f"{path}: no table lists any model")
    return out
