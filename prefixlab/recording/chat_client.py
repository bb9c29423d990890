"""The chat client a recording sends every request through: never retried, patient, never silent.

A recording must show the calculator every request the server saw. An SDK retry breaks that: when
the first attempt times out at the client, the server may already have processed it (its prompt
is in the cache), and a retry that then succeeds is recorded alone -- the calculator sees one
request where the server saw two, and mispredicts the cached count of the retry and of what
follows. So while recording:

- no retry at all (miniagent's ``ChatModel`` with ``max_retries=0``);
- a generous timeout (``TIMEOUT``: one request of a long session on a busy 2-core machine);
- a progress line every ``PROGRESS_EVERY`` seconds while a request waits, so a slow server is
  not mistaken for a hung one;
- on a timeout or a dropped connection: ``RequestUnanswered``, which stops the recording;
  ``run_recording`` marks it incomplete with this reason (``manifest.error``);
- when the server refuses the request with a JSON error (llama-server's HTTP 400 for a prompt
  longer than its slot's context): ``RequestRefused``, carrying the exact request body that was
  sent and the server's error, so the recorder can keep it as a refused ``model_call`` (a request
  the server saw: it picked a slot for it) and end that session there. miniagent's ``ChatModel``
  stays as it is: the body is read back from the HTTP request the openai SDK sent.
"""
from __future__ import annotations

import json
import threading

import httpx2 as httpx  # the HTTP library under the openai SDK, as in miniagent/model.py
import openai

from miniagent.model import ChatModel, ModelError, ModelReply

TIMEOUT = 600.0  # seconds one request may take before the recording stops
PROGRESS_EVERY = 30.0  # seconds between two "waiting for the server" lines


class RequestUnanswered(ModelError):
    """A request may have reached the server but got no answer; the recording must stop here."""


class RequestRefused(ModelError):
    """The server answered the request with an error body (HTTP 4xx) instead of a completion.

    ``request``: the JSON body as sent; ``error``: ``{"status": <HTTP status>, "body": <the server's
    JSON error>}``, the ``error`` field of a refused ``model_call`` entry (prefixlab.recording.format).
    """

    def __init__(self, message: str, request: dict, error: dict):
        super().__init__(message)
        self.request, self.error = request, error


class RecordingChatModel:
    """``ChatModel.complete`` with no retry, ``timeout`` seconds, and a progress line while waiting."""

    def __init__(self, base_url: str, model: str, log=print, timeout: float | None = None,
                 progress_every: float | None = None):
        self.timeout = TIMEOUT if timeout is None else timeout
        self.progress_every = PROGRESS_EVERY if progress_every is None else progress_every
        self.base_url, self.log = base_url, log
        # progress=None: this class announces the wait itself (to ``log``); miniagent's own
        # announcer would be a second thread printing the same wait to stderr.
        self.chat = ChatModel(base_url, model, timeout=self.timeout, max_retries=0, progress=None)

    def complete(self, messages: list[dict], tools: list[dict] | None = None, **params) -> ModelReply:
        answered = threading.Event()
        waiting = threading.Thread(target=self._progress, args=(answered,), daemon=True)
        waiting.start()
        try:
            return self.chat.complete(messages, tools, **params)
        except ModelError as err:
            if (refused := refusal(err)) is not None:
                raise refused from err
            unanswered = self._unanswered(err, messages)
            if unanswered is None:
                raise
            raise unanswered from err
        finally:
            answered.set()
            waiting.join()

    def _progress(self, answered: threading.Event) -> None:
        waited = 0.0
        while not answered.wait(self.progress_every):
            waited += self.progress_every
            self.log(f"  waiting for the server: {waited:.0f} s… (stops at {self.timeout:.0f} s)")

    def _unanswered(self, err: ModelError, messages: list[dict]) -> RequestUnanswered | None:
        """The reason for the manifest if the server may have seen the request unanswered; None for
        errors that pass through as they are (the server answered with an error, or was never reached)."""
        chain = causes(err)
        if any(isinstance(e, (httpx.ConnectError, httpx.ConnectTimeout)) for e in chain):
            return None  # never connected: the server cannot have seen it
        what = f"the request with {len(messages)} messages ({len(json.dumps(messages, ensure_ascii=False))} characters)"
        if any(isinstance(e, openai.APITimeoutError) for e in chain):
            why = f"got no answer from {self.base_url} within {self.timeout:.0f} s"
        elif dropped := next((e for e in chain if isinstance(e, httpx.TransportError)), None):
            why = f"lost its connection to {self.base_url} before an answer ({type(dropped).__name__}: {dropped})"
        else:
            return None
        return RequestUnanswered(
            f"{what} {why}. The server may have received and processed it, so it is not sent again "
            "(a retry would hide that request from the calculator): the recording stops here")


def refusal(err: ModelError) -> RequestRefused | None:
    """``RequestRefused`` if the server refused the request with a JSON error body (HTTP 4xx); else None."""
    status_error = next((e for e in causes(err) if isinstance(e, openai.APIStatusError)), None)
    if status_error is None or not 400 <= status_error.status_code < 500:
        return None
    try:
        body = json.loads(status_error.response.text)
        request = json.loads(status_error.response.request.read())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None  # not a JSON error, or no JSON body sent: passes through as it is
    if not isinstance(body, dict) or not isinstance(body.get("error"), dict):
        return None
    return RequestRefused(f"the server refused the request (HTTP {status_error.status_code}): "
                          f"{body['error'].get('message', status_error.response.text[:300])}",
                          request, {"status": status_error.status_code, "body": body})


def causes(err: BaseException) -> list[BaseException]:
    """``err`` and the exceptions it was raised from or during, innermost last."""
    chain = []
    while err is not None and err not in chain:
        chain.append(err)
        err = err.__cause__ or err.__context__
    return chain


def recording_model(base_url: str, model: str, log=print) -> RecordingChatModel:
    """The model a recorder's policies send through (see the module's docstring)."""
    return RecordingChatModel(base_url, model, log)
