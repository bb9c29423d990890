"""Read a price table (``data/prices/<provider>.yml``) and check every field pricing reads.

A price table is edited by hand when prices change, so a typo must never turn into a silently
wrong cost: a price that is not a number, zero, negative, NaN or infinite, YAML that does not
parse, a missing or misspelled field -- each is refused on load with one message naming the file,
the model and the field. What a table may hold is written once, as a JSON Schema
(``data/prices/schema.json``); this module validates against it and words the first error.
``anthropic-minimums.yml`` (minimum cacheable prompt lengths) is checked the same way.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import jsonschema
import yaml

from prefixlab.paths import PRICES_SCHEMA


class PriceTableError(ValueError):
    """A price table that cannot be used; the message names the file, the model and the field."""


def _finite(validator, wanted, instance, schema):
    # JSON Schema has no "finite": NaN passes exclusiveMinimum (every comparison with NaN is false)
    # and so does infinity, and YAML writes both (.nan, .inf).
    if wanted and isinstance(instance, float) and not math.isfinite(instance):
        yield jsonschema.ValidationError(f"{instance!r} is not finite")


_Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"finite": _finite})


@lru_cache(maxsize=None)
def _schema() -> dict:
    return json.loads(PRICES_SCHEMA.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _validator(definition: str):
    return _Validator(dict(_schema(), **{"$ref": f"#/$defs/{definition}"}), format_checker=_Validator.FORMAT_CHECKER)


@lru_cache(maxsize=None)
def _doc_fields() -> frozenset[str]:
    """The fields any row may carry besides its prices (name, ids, notes): never "unknown"."""
    return frozenset(_schema()["$defs"]["row_docs"]["properties"])


def _json_type(value) -> str:
    names = {dict: "mapping", list: "list", str: "text", bool: "true/false", type(None): "nothing"}
    return names.get(type(value), type(value).__name__)


def _words(err: jsonschema.ValidationError, path: Path, where_of) -> str:
    """One line for the schema's error: the file, the model (or table), the field, what was wrong."""
    where, field = where_of([str(part) for part in err.absolute_path])
    what = f"field {field}" if field else "the row" if where != str(path) else "the file"
    should = err.schema.get("should", "valid")
    if not err.absolute_path and err.validator in ("required", "type") and "needs" in should:
        return f"{path} is not {should}"
    if err.validator == "required":
        missing = [name for name in err.validator_value if name not in err.instance][0]
        why = f" ({err.schema['why']})" if "why" in err.schema else ""
        return f"{where}: field {field + '.' if field else ''}{missing} is missing{why}"
    if err.validator in ("additionalProperties", "unevaluatedProperties"):
        known = list(err.schema.get("properties", {}))
        unknown = sorted(str(k) for k in err.instance if k not in known and k not in _doc_fields())[0]
        name = f"{field}.{unknown}" if field else unknown
        return (f"{where}: unknown field {name!r} (a misspelling, or an unquoted comma in a value; "
                f"known fields: {', '.join(sorted(known))}, ...)")
    if err.validator == "type" and err.instance is None:
        return f"{where}: {what} is missing"
    if err.validator in ("exclusiveMinimum", "finite") and "kind" in err.schema:
        return f"{where}: {what} should be a positive, finite {err.schema['kind']}, got {err.instance!r}"
    if err.validator == "minProperties":
        return f"{where}: {what} is empty"
    if err.validator == "enum":
        return f"{where}: {what} should be one of {', '.join(map(str, err.validator_value))}, got {err.instance!r}"
    got = _json_type(err.instance) if isinstance(err.instance, (dict, list)) else repr(err.instance)
    return f"{where}: {what} should be {should}, got {got}"


def _first_error(document, definition: str):
    # sorted by where it is, so the same table always gives the same message
    errors = _validator(definition).iter_errors(document)
    return min(errors, key=lambda e: [str(p) for p in e.absolute_path], default=None)


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


def check_table(table, path: Path, provider: str) -> None:
    """Refuse a table with a field pricing would misread; see the module docstring."""
    def where_of(parts):
        if parts[:1] == ["models"] and len(parts) > 1:
            return f"{path}: model {parts[1]}", ".".join(parts[2:])
        return str(path), ".".join(parts)

    if (err := _first_error(table, provider)) is not None:
        raise PriceTableError(_words(err, path, where_of))


def read_minimums(path: Path) -> dict[str, dict[str, int]]:
    """Anthropic's minimum cacheable prompt length per model, per dated table (newest first)."""
    doc = read_yaml(path)

    def where_of(parts):
        if len(parts) >= 4 and parts[2] == "models":
            return f"{path}: table {parts[1]}: model {parts[3]}", "minimum"
        if len(parts) >= 2:
            return f"{path}: table {parts[1]}", ".".join(parts[2:])
        return str(path), ".".join(parts)

    if (err := _first_error(doc, "minimums")) is not None:
        raise PriceTableError(_words(err, path, where_of))
    out = {str(date_): dict(table["models"]) for date_, table in doc["tables"].items() if table.get("models")}
    if not out:
        raise PriceTableError(f"{path}: no table lists any model")
    return out
