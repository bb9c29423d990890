"""The request entry's schema (data/recordings/entry.schema.json): valid itself, and each error one clear line."""
import json

import jsonschema
import pytest

from prefixlab.paths import RECORDING_ENTRY_SCHEMA
from prefixlab.recording.entries import check_entry

GOOD = {"type": "model_call", "id": "a1", "request": {"messages": [{"role": "user", "content": "hi"}]},
        "response": {"usage": {"prompt_tokens": 12, "prompt_tokens_details": {"cached_tokens": 0}},
                     "choices": [{"message": {"content": "hello"}}]}}


def test_the_schema_is_a_valid_draft_07_schema():
    jsonschema.Draft7Validator.check_schema(json.loads(RECORDING_ENTRY_SCHEMA.read_text(encoding="utf-8")))


def test_a_good_entry_passes():
    check_entry(GOOD, "s.jsonl:3")


def changed(path, value):
    entry = json.loads(json.dumps(GOOD))
    *parents, last = path
    target = entry
    for part in parents:
        target = target[part]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return entry


@pytest.mark.parametrize("path, value, words", [
    (["request", "messages"], [], "field request.messages is empty (expected at least one: the chat messages sent)"),
    (["request", "messages", 0], "hi", "field request.messages[0] should be an object, got string (a chat message)"),
    (["request", "messages", 0, "role"], KeyError, "field request.messages[0].role is missing (expected a string"),
    (["response", "usage", "prompt_tokens"], True, "field response.usage.prompt_tokens should be an integer, got boolean"),
    (["response", "usage", "prompt_tokens"], KeyError, "field response.usage.prompt_tokens is missing"),
    (["response"], KeyError, "field response is missing (expected an object: the server's answer)"),
    (["response", "choices", 0, "message", "content"], 7, "field response.choices[0].message.content should be a string"),
    (["request", "tools"], [{"function": {}}], "field request.tools[0].function.name is missing"),
])
def test_each_error_names_the_line_and_the_field(path, value, words):
    with pytest.raises(ValueError) as raised:
        check_entry(changed(path, value), "s.jsonl:3")
    assert str(raised.value).startswith("s.jsonl:3: ") and words in str(raised.value), str(raised.value)
