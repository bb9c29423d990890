"""The server's reply, checked once where it enters miniagent.

A chat server is outside data: its JSON may have any shape. ``read_reply`` checks every value
the agent goes on to use, once, and says in one line what is wrong; after it, the loop and the
tools trust the reply. What it checks:

- the body is a JSON object with ``choices[0].message`` an object;
- the message's ``content`` is text or null (some servers send a list of parts: refused, not
  joined, because the agent would then act on a guess);
- no text in the message holds a lone surrogate (``"\\ud800"`` is valid JSON but no character:
  it cannot be written to a file or a UTF-8 session).

``usage`` is checked apart (``reported_tokens``), because a reply without a usable count is still
a reply: only a token budget needs the count, and a run with a budget stops when it is missing
(loop.py).
"""
from __future__ import annotations

import json


class ReplyError(ValueError):
    """The server answered, but not with a reply the agent can use; ``response`` is what it sent
    (the parsed JSON, or None if it was not JSON) and ``text`` the body as received."""

    def __init__(self, message: str, text: str, response=None):
        super().__init__(message)
        self.text, self.response = text, response


def read_reply(text: str) -> tuple[dict, dict]:
    """The server's JSON response and its ``choices[0].message``, or a ReplyError saying what it
    answered instead (the message reads on from "the server answered ...")."""
    try:
        response = json.loads(text)
    except json.JSONDecodeError as err:
        raise ReplyError(f"something that is not JSON ({err.msg} at character {err.pos}): "
                         f"{text[:300]}", text) from None
    if not isinstance(response, dict):
        raise ReplyError(f"a response that is not a JSON object: {text[:300]}", text, response)
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict) \
            or not isinstance(choices[0].get("message"), dict):
        raise ReplyError(f"a response with no choices[0].message object: {text[:300]}", text, response)
    message = choices[0]["message"]
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ReplyError(f"a message whose content is a {type(content).__name__}, not text or null: "
                         f"{str(content)[:300]}", text, response)
    if where := lone_surrogate(message):
        raise ReplyError(f"a reply whose {where} holds a lone surrogate (an escape such as \\ud800 that is "
                         "no character); the reply is kept in the session file, nothing was run", text, response)
    return response, message


def lone_surrogate(value, where: str = "message") -> str | None:
    """Where in ``value`` (strings, lists, objects) a string holds a lone surrogate, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
        return None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if found := lone_surrogate(item, f"{where}.{key}" if isinstance(key, str) else f"{where}[{key}]"):
            return found
    return None


def count(value) -> bool:
    """A token count: a whole number, 0 or more (``True`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def usage_problem(response) -> str | None:
    """Why the tokens of this call cannot be counted from its ``usage``, or None."""
    usage = response.get("usage") if isinstance(response, dict) else None
    if usage is None:
        return "the server reported no usage"
    if not isinstance(usage, dict):
        return f"the server's usage is a {type(usage).__name__}, not an object"
    for key in ("prompt_tokens", "completion_tokens"):
        if not count(usage.get(key)):
            return f"the server's usage.{key} is {usage.get(key)!r}, not a whole number of tokens"
    return None


def reported_tokens(response) -> int | None:
    """Prompt + completion tokens of one call, as the server reports them; None if they cannot be counted."""
    if usage_problem(response):
        return None
    return response["usage"]["prompt_tokens"] + response["usage"]["completion_tokens"]
