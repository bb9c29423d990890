"""prefixlab.serving.client.ServerClient against a small local HTTP server (no llama-server)."""
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from prefixlab.serving.client import CHAT_TOKENIZE, ServerClient, ServerError


class Handler(BaseHTTPRequestHandler):
    def _reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self._reply(200, {"status": "ok"})
        elif self.path == "/props":
            self._reply(200, {"n_ctx": 8192})
        else:
            self._reply(404, {"error": {"code": 404, "message": "File Not Found"}})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.received.append((self.path, body))
        if self.path == "/tokenize":
            self._reply(200, {"tokens": [len(body["content"])]})
        elif self.path == "/apply-template":
            self._reply(400, {"error": {"code": 400, "message": "template failed"}})
        else:
            self._reply(500, "not json with an error field")

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.received = []
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def url(httpd):
    return f"http://127.0.0.1:{httpd.server_address[1]}/"  # the trailing slash is dropped


def test_get_and_post_decode_json(server):
    client = ServerClient(url(server))
    assert client.props() == {"n_ctx": 8192}
    assert client.tokenize("abc") == [3]
    assert client.tokenize_default("abcd") == [4]
    assert server.received == [("/tokenize", {"content": "abc", **CHAT_TOKENIZE}),
                               ("/tokenize", {"content": "abcd"})]


def test_an_http_error_raises_with_the_servers_message(server):
    client = ServerClient(url(server))
    with pytest.raises(ServerError) as err:
        client.apply_template({"messages": []})
    assert (err.value.status, err.value.message) == (400, "template failed")
    with pytest.raises(ServerError) as err:
        client.completion({"prompt": [1, 2]})
    assert err.value.status == 500 and "not json" in err.value.message


def test_status_never_raises(server):
    client = ServerClient(url(server))
    assert client.status("/health") == (200, {"status": "ok"})
    assert client.status("/nothing") == (404, None)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert ServerClient(f"http://127.0.0.1:{port}").status("/health", timeout=2.0) == (0, None)
