"""A client for any OpenAI-compatible chat server that keeps a full record.

For every call we keep the exact request body that went over the wire and the
server's whole JSON response, non-standard fields included (llama.cpp adds
``timings`` with ``cache_n`` and ``prompt_n``). Those records are what lets
the course replay a session offline and check the server's cache numbers.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import httpx2 as httpx  # the HTTP library the openai SDK (3.x) is built on
import openai


class ModelError(RuntimeError):
    """The server could not be reached or refused the request."""


@dataclass
class ModelReply:
    message: dict  # the assistant message to append: role, content, tool_calls
    request: dict  # the exact JSON body that was sent
    response: dict  # the server's full JSON response


def assistant_message(raw_message: dict) -> dict:
    """Keep only the fields a chat history needs."""
    message = {"role": "assistant", "content": raw_message.get("content") or ""}
    if raw_message.get("tool_calls"):
        message["tool_calls"] = [
            {"id": c["id"], "type": "function",
             "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}}
            for c in raw_message["tool_calls"]]
    return message


class ChatModel:
    def __init__(self, base_url: str, model: str = "local", api_key: str = "not-needed",
                 timeout: float = 120.0, max_retries: int = 3, **params):
        self.base_url, self.model, self.params = base_url, model, params
        self._sent: list[bytes] = []
        # The hook sees the request after the SDK has serialised it: exactly what was sent.
        http = httpx.Client(event_hooks={"request": [lambda r: self._sent.append(r.read())]})
        # The SDK retries connection errors, 408/429 and 5xx with exponential backoff.
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout,
                                    max_retries=max_retries, http_client=http)

    def complete(self, messages: list[dict], tools: list[dict] | None = None, **params) -> ModelReply:
        body = {"model": self.model, "messages": messages, **self.params, **params}
        if tools:
            body["tools"] = tools
        self._sent.clear()
        try:
            raw = self.client.chat.completions.with_raw_response.create(**body)
        except openai.APIConnectionError as err:  # includes timeouts
            raise ModelError(f"cannot reach the model server at {self.base_url} "
                             f"({err.__class__.__name__}: {err}); is it running?") from err
        except openai.APIStatusError as err:
            raise ModelError(f"the server at {self.base_url} answered HTTP {err.status_code}: "
                             f"{err.response.text[:500]}") from err
        response = json.loads(raw.http_response.text)
        try:
            raw_message = response["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as err:
            raise ModelError(f"the server's response has no choices[0].message: {str(response)[:300]}") from err
        # The last request sent is the one that got this answer (earlier ones were retried).
        request = json.loads(self._sent[-1]) if self._sent else body
        return ModelReply(assistant_message(raw_message), request, response)
