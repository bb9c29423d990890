"""A client for any OpenAI-compatible chat server that keeps a full record.

For every call we keep the exact request body that went over the wire and the
server's whole JSON response, non-standard fields included (llama.cpp adds
``timings`` with ``cache_n`` and ``prompt_n``). Those records are what lets
the course replay a session offline and check the server's cache numbers.

Waiting is never silent: while a request is out, a line every ``progress_every``
seconds says how long it has been; a failed try that is retried says so. A
request that times out is not retried (the server may still be working on it).
"""
from __future__ import annotations

import json
import math
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlsplit

import httpx2 as httpx  # the HTTP library the openai SDK (3.x) is built on
import openai

from .reply import ReplyError, read_reply
from .session import tool_call_problem


class ModelError(RuntimeError):
    """The server could not be reached, refused the request, or answered with nothing usable.
    ``answered``: when the server did answer, the call's ``request`` and ``response`` (None if it was
    not JSON) and the body's ``text``, so the caller can keep the call in the session file."""

    def __init__(self, message: str, answered: dict | None = None):
        super().__init__(message)
        self.answered = answered


@dataclass
class ModelReply:
    message: dict  # the assistant message to append: role, content, tool_calls
    request: dict  # the exact JSON body that was sent
    response: dict  # the server's full JSON response


def stderr_line(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def retryable(status: int) -> bool:
    """The HTTP statuses worth another try (the ones the openai SDK retries)."""
    return status in (408, 409, 429) or status >= 500


def assistant_message(raw_message: dict) -> dict:
    """Keep only the fields a chat history needs; a ModelError if a tool call cannot be run."""
    if not isinstance(raw_message, dict):
        raise ModelError(f"the server's choices[0].message is not an object: {str(raw_message)[:300]}")
    calls = raw_message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ModelError(f"the server's tool_calls is not a list: {str(calls)[:300]}")
    for i, call in enumerate(calls):
        if problem := tool_call_problem(call, f"tool_calls[{i}]"):
            raise ModelError(f"the server's {problem}: {str(call)[:300]}")
    message = {"role": "assistant", "content": raw_message.get("content") or ""}
    if raw_message.get("tool_calls"):
        message["tool_calls"] = [
            {"id": c["id"], "type": "function",
             "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}}
            for c in raw_message["tool_calls"]]
    return message


def url_problem(base_url) -> str | None:
    """Why ``base_url`` is no server address (say it before trying: a connection error would ask
    whether a server that is running is running), or None."""
    try:
        parts = urlsplit(base_url)
        fine = parts.scheme in ("http", "https") and parts.hostname and (parts.port or True)
    except (TypeError, ValueError, AttributeError):  # not text, a bad [IPv6] or port
        fine = False
    if not fine:
        return (f"the server URL {base_url!r} is not an http:// or https:// address with a host, "
                "e.g. http://127.0.0.1:8080/v1")
    return None


class ChatModel:
    """``timeout``: seconds to wait for one answer; ``max_retries``: further tries after a connection
    error or a busy server (HTTP 408, 409, 429, 5xx); ``progress``: where waiting and retries are
    announced (None: nowhere)."""

    def __init__(self, base_url: str, model: str = "local", api_key: str = "not-needed",
                 timeout: float = 120.0, max_retries: int = 3,
                 progress: Callable[[str], None] | None = stderr_line, progress_every: float = 15.0,
                 **params):
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
                or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if problem := url_problem(base_url):
            raise ValueError(problem)
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be a whole number, 0 or more, not {max_retries!r}")
        self.base_url, self.model, self.params = base_url, model, params
        self.timeout, self.max_retries = timeout, max_retries
        self.progress, self.progress_every = progress, progress_every
        self._sent: list[bytes] = []
        # The hook sees the request after the SDK has serialised it: exactly what was sent.
        http = httpx.Client(event_hooks={"request": [lambda r: self._sent.append(r.read())]})
        # The SDK itself never retries: our loop does, and says so.
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout,
                                    max_retries=0, http_client=http)

    def complete(self, messages: list[dict], tools: list[dict] | None = None, **params) -> ModelReply:
        body = {"model": self.model, "messages": messages, **self.params, **params}
        if tools:
            body["tools"] = tools
        for attempt in range(self.max_retries + 1):
            self._sent.clear()
            try:
                with self._announcing_the_wait():
                    raw = self.client.chat.completions.with_raw_response.create(**body)
                break
            except openai.APITimeoutError as err:
                raise ModelError(
                    f"the model server at {self.base_url} did not answer within {self.timeout:g} s; it may be "
                    "stuck or overloaded, or the prompt may need longer on this machine: check the server's log, "
                    "or allow more time (python -m miniagent --request-timeout SECONDS). A request that timed "
                    "out is not sent again: the server may still be working on it.") from err
            except openai.APIConnectionError as err:
                problem = f"cannot reach the model server at {self.base_url} ({err.__class__.__name__}: {err})"
                if attempt == self.max_retries:
                    raise ModelError(f"{problem}; is it running?") from err
                retry = "cannot reach the model server"
            except openai.APIStatusError as err:
                if attempt == self.max_retries or not retryable(err.status_code):
                    raise ModelError(f"the server at {self.base_url} answered HTTP {err.status_code}: "
                                     f"{err.response.text[:500]}") from err
                retry = f"the model server answered HTTP {err.status_code}"
            delay = min(0.5 * 2 ** attempt, 8.0)
            self._say(f"  {retry}; retry {attempt + 1} of {self.max_retries} in {delay:g} s")
            time.sleep(delay)
        request = json.loads(self._sent[-1]) if self._sent else body
        try:  # reply.py checks the server's answer once; from here on it is trusted
            response, raw_message = read_reply(raw.http_response.text)
            message = assistant_message(raw_message)
        except (ReplyError, ModelError) as err:
            text = raw.http_response.text
            kept = getattr(err, "response", None) if isinstance(err, ReplyError) else json.loads(text)
            problem = f"the server at {self.base_url} answered {err}" if isinstance(err, ReplyError) else str(err)
            raise ModelError(problem, answered={"request": request, "response": kept, "text": text}) from None
        return ModelReply(message, request, response)

    def _say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)

    @contextmanager
    def _announcing_the_wait(self):
        """While the body runs, a line every ``progress_every`` seconds says how long we have waited."""
        if self.progress is None:
            yield
            return
        done, started = threading.Event(), time.monotonic()

        def announce():
            while not done.wait(self.progress_every):
                self._say(f"  waiting for the model server: {time.monotonic() - started:.0f} s "
                          f"(timeout {self.timeout:g} s)")

        thread = threading.Thread(target=announce, daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()
