"""The one HTTP client for a running llama-server's JSON endpoints.

Everything in prefixlab (and its tests) that talks to a server directly goes through
``ServerClient``: health and props while a server starts, ``/tokenize`` and ``/apply-template``
for the tokenizer checks, ``/completion`` with token ids for the cache-rule checks. The agent's own
chat requests go through miniagent's OpenAI client instead.

    client = ServerClient("http://127.0.0.1:8080")
    client.props()["n_ctx"], client.tokenize("hello")
    client.status("/health")          # (200, {...}); (0, None) while nothing answers
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request

# How llama-server's chat path tokenizes a rendered prompt (tools/server/server-context.cpp:4650);
# ``/tokenize`` is asked the same way.
CHAT_TOKENIZE = {"add_special": True, "parse_special": True}


class ServerError(RuntimeError):
    """The server answered with an HTTP error; ``message`` is its own error text."""

    def __init__(self, status: int, message: str):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class ServerClient:
    """JSON over HTTP to one server (``url`` without the ``/v1`` suffix)."""

    def __init__(self, url: str, timeout: float = 120.0):
        self.url = url.rstrip("/")
        self.timeout = timeout

    def _open(self, path: str, body: dict | None, timeout: float | None):
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, headers={"Content-Type": "application/json"})
        return urllib.request.urlopen(request, timeout=self.timeout if timeout is None else timeout)

    def request(self, path: str, body: dict | None = None, timeout: float | None = None):
        """The decoded reply of a GET (no body) or a POST; an HTTP error raises ServerError."""
        try:
            with self._open(path, body, timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            try:
                message = json.loads(raw)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = raw
            raise ServerError(e.code, message) from None

    def status(self, path: str, body: dict | None = None, timeout: float | None = None) -> tuple[int, object]:
        """(HTTP status, decoded reply or None); never raises: status 0 when nothing answers.

        For polling a server that may not be up yet, or may be gone.
        """
        try:
            with self._open(path, body, timeout) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, None
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            return 0, None

    # -- the endpoints the checks use -------------------------------------------------------------

    def props(self) -> dict:
        return self.request("/props")

    def tokenize(self, text: str) -> list[int]:
        """``/tokenize`` the way the chat path tokenizes (``CHAT_TOKENIZE``)."""
        return self.request("/tokenize", {"content": text, **CHAT_TOKENIZE})["tokens"]

    def tokenize_default(self, text: str) -> list[int]:
        """``/tokenize`` with its own defaults (add_special=false)."""
        return self.request("/tokenize", {"content": text})["tokens"]

    def apply_template(self, body: dict) -> str:
        return self.request("/apply-template", body)["prompt"]

    def prompt_tokens(self, body: dict) -> int:
        """``usage.prompt_tokens`` of a real one-token chat completion."""
        full = dict(body, max_tokens=1, temperature=0.0, stream=False)
        return self.request("/v1/chat/completions", full)["usage"]["prompt_tokens"]

    def chat(self, body: dict) -> dict:
        """The whole reply of ``POST /v1/chat/completions``."""
        return self.request("/v1/chat/completions", body)

    def completion(self, body: dict) -> dict:
        """The whole reply of llama-server's own ``POST /completion`` (prompt as text or token ids)."""
        return self.request("/completion", body)
