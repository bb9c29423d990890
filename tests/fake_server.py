"""A tiny OpenAI-compatible HTTP server for unit tests of the client (not a result)."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


DROP = (None, None)  # a reply that closes the connection without answering (a server that died mid-request)


class FakeChatServer:
    """Answers /v1/chat/completions with the next scripted (status, body) pair (or ``DROP``)."""

    def __init__(self, replies):
        # A list of (status, body) pairs, or a function of the request body giving one.
        self.replies = replies if callable(replies) else list(replies)
        self.received: list[bytes] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                outer.received.append(self.rfile.read(int(self.headers["Content-Length"])))
                if callable(outer.replies):
                    status, body = outer.replies(json.loads(outer.received[-1]))
                else:
                    status, body = outer.replies.pop(0) if outer.replies else (500, {"error": "no more replies"})
                if status is None:  # DROP: close the connection without an answer
                    self.close_connection = True
                    return
                data = body if isinstance(body, bytes) else json.dumps(body).encode()  # bytes: sent as they are
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def completion(message: dict, prompt_tokens=74, cached=73) -> dict:
    """A response shaped like llama-server's, with its non-standard `timings`."""
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "local",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 1, "total_tokens": prompt_tokens + 1,
                      "prompt_tokens_details": {"cached_tokens": cached}},
            "timings": {"cache_n": cached, "prompt_n": prompt_tokens - cached, "prompt_ms": 2.5}}
