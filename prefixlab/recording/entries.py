"""One request entry of a recording, checked against ``data/recordings/entry.schema.json``.

The schema says which fields the calculator, verify, report and the book read, and what each
holds (its ``description``). It is compiled once with fastjsonschema: a recording holds thousands
of entries, and the compiled check is as fast as a hand-written one (the general ``jsonschema``
validator took ten times as long over the shipped recordings). The first error becomes one line
naming the file and line, the field, what was expected and what was there.
"""
from __future__ import annotations

import json
from functools import lru_cache

import fastjsonschema

from prefixlab.paths import RECORDING_ENTRY_SCHEMA

_TYPE_WORDS = {"object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
               "number": "a number"}
_JSON_NAMES = {dict: "object", list: "array", str: "string", int: "integer", float: "number",
               bool: "boolean", type(None): "null"}


def json_type(value) -> str:
    """A value's JSON type, for messages ("got array", not "got list")."""
    return _JSON_NAMES.get(type(value), type(value).__name__)


@lru_cache(maxsize=None)
def _schema() -> dict:
    return json.loads(RECORDING_ENTRY_SCHEMA.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _check():
    return fastjsonschema.compile(_schema())


def _expected(field_schema: dict) -> str:
    """'a string', 'an integer', 'a string or an array' ... ('null' is never what is expected)."""
    types = field_schema.get("type", [])
    types = [types] if isinstance(types, str) else types
    return " or ".join(_TYPE_WORDS[t] for t in types if t != "null") or "a value"


def _dotted(path: list[str]) -> str:
    """fastjsonschema's ['data', 'request', 'messages', '1'] -> 'request.messages[1]'."""
    out = ""
    for part in path[1:]:
        out += f"[{part}]" if part.isdigit() else (f".{part}" if out else part)
    return out


def check_entry(entry: dict, where: str) -> None:
    """Refuse a request entry the readers would misread; the message names ``where`` and the field."""
    try:
        _check()(entry)
    except fastjsonschema.JsonSchemaValueException as err:
        raise ValueError(_words(err, where)) from None


def _words(err: fastjsonschema.JsonSchemaValueException, where: str) -> str:
    field, rule, value, schema = _dotted(err.path), err.rule, err.value, err.definition
    what = schema.get("description", "")
    if rule == "required":
        missing = next(name for name in schema["required"] if name not in value)
        # the else-branch ("an answered request") names no properties: the root schema has them
        inner = schema.get("properties", {}).get(missing) or _schema()["properties"].get(missing, {})
        name = f"{field}.{missing}" if field else missing
        return f"{where}: field {name} is missing (expected {_expected(inner)}: {inner.get('description', '')})"
    if rule == "type":
        return f"{where}: field {field} should be {_expected(schema)}, got {json_type(value)} ({what})"
    if rule == "minItems":
        return f"{where}: field {field} is empty (expected at least one: {what})"
    if rule == "not":
        return f"{where}: a request has either a response or an error, not both"
    if rule == "const":
        return f"{where}: field {field}: {what}, got {value!r}"
    if rule in ("minimum", "maximum"):
        should = schema.get("should") or f"at {'least' if rule == 'minimum' else 'most'} {err.rule_definition}"
        return f"{where}: field {field} should be {should}, got {value!r} ({what})"
    return f"{where}: field {field}: {err.message.removeprefix('data.')} ({what})"  # a rule this list misses
