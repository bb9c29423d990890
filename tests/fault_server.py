"""Faults a chat server can answer with, for the tests of miniagent's boundary (not a result).

Each fault is a (status, body) pair for ``tests/fake_server.FakeChatServer``: a reply shaped like
llama-server's with one thing wrong, a body that is not JSON, an HTTP error, or ``HANG`` (the
server keeps the request and never answers). ``FAULTS`` names them all, so a test can run every
fault through the same check.
"""
from __future__ import annotations

import copy

from fake_server import DROP, FakeChatServer, completion

HANG = ("hang", None)  # the server reads the request and never answers (until the test ends)


def final(content="done", **usage) -> dict:
    """A well-formed final answer; ``usage`` overrides fields of its usage block."""
    body = completion({"role": "assistant", "content": content})
    body["usage"].update(usage)
    return body


def with_change(change) -> dict:
    """A well-formed final answer after ``change(body)`` has damaged it in place."""
    body = copy.deepcopy(final())
    change(body)
    return body


def tool_call(arguments: str, name: str = "read_file") -> dict:
    return completion({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}]})


def _set(path, value):
    def change(body):
        target = body
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value
    return change


_DELETE = object()

# name -> (status, body): every way the server's answer has been seen (or can be) wrong.
FAULTS = {
    "content is a list": (200, with_change(_set(["choices", 0, "message", "content"],
                                                 [{"type": "text", "text": "done"}]))),
    "content is a number": (200, with_change(_set(["choices", 0, "message", "content"], 7))),
    "lone surrogate in content": (200, b'{"choices": [{"index": 0, "finish_reason": "stop", "message": '
                                       b'{"role": "assistant", "content": "bad \\ud800 text"}}], '
                                       b'"usage": {"prompt_tokens": 5, "completion_tokens": 1}}'),
    "lone surrogate in call arguments": (200, b'{"choices": [{"index": 0, "finish_reason": "tool_calls", '
                                              b'"message": {"role": "assistant", "content": "", "tool_calls": '
                                              b'[{"id": "c1", "type": "function", "function": {"name": '
                                              b'"read_file", "arguments": "{\\"path\\": \\"\\udc00\\"}"}}]}}], '
                                              b'"usage": {"prompt_tokens": 5, "completion_tokens": 1}}'),
    "usage tokens are text": (200, final(prompt_tokens="74", completion_tokens="1")),
    "usage tokens are negative": (200, final(prompt_tokens=-500, completion_tokens=-1)),
    "usage tokens are fractions": (200, final(prompt_tokens=7.5)),
    "usage tokens are true": (200, final(prompt_tokens=True)),
    "usage is a list": (200, with_change(_set(["usage"], [74, 1]))),
    "usage is missing": (200, with_change(_set(["usage"], _DELETE))),
    "cut off at max_tokens": (200, with_change(_set(["choices", 0, "finish_reason"], "length"))),
    "choices is empty": (200, with_change(_set(["choices"], []))),
    "message is text": (200, with_change(_set(["choices", 0, "message"], "done"))),
    "not JSON": (200, b"<html>502 bad gateway</html>"),
    "JSON cut in half": (200, b'{"choices": [{"index": 0, "message": {"role": "assis'),
    "JSON but a list": (200, [1, 2, 3]),
    "HTTP 400": (400, {"error": {"message": "bad request"}}),
    "HTTP 500": (500, {"error": "internal"}),
    "connection dropped": DROP,
}
# The faults after which the server's usage cannot be counted against a budget.
UNCOUNTABLE = ("usage tokens are text", "usage tokens are negative", "usage tokens are fractions",
               "usage tokens are true", "usage is a list", "usage is missing")


class FaultServer(FakeChatServer):
    """A ``FakeChatServer`` that also knows ``HANG``: the request is read and never answered."""

    def __init__(self, replies):
        super().__init__(replies)
        import threading
        self.released = threading.Event()
        handler, outer = self.httpd.RequestHandlerClass, self
        answer = handler.do_POST

        def do_post(request_handler):
            upcoming = outer.replies[0] if isinstance(outer.replies, list) and outer.replies else None
            if upcoming == HANG:
                outer.replies.pop(0)
                outer.received.append(request_handler.rfile.read(int(request_handler.headers["Content-Length"])))
                outer.released.wait(30)
                request_handler.close_connection = True
                return
            answer(request_handler)

        handler.do_POST = do_post

    def __exit__(self, *exc):
        self.released.set()
        super().__exit__(*exc)
