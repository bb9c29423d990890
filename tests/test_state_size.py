"""The size of a cached prompt's state: measured from slot saves, kept per model, used by the rule."""
import sys
import textwrap

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.rules.llamacpp import LlamaCppConfig
from prefixlab.paths import RECORDINGS
from prefixlab.serving import state_size

# A stand-in llama-server whose saved slot is FIXED + PER_TOKEN x n bytes of state (+ the file's framing).
FAKE = """
    import json, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    FIXED, PER_TOKEN, BEND = {fixed}, {per_token}, {bend}
    port = int(sys.argv[sys.argv.index("--port") + 1])
    held = [0]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/health" else 404)
            self.end_headers()
            self.wfile.write(b'{{"status": "ok"}}')

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path == "/completion":
                held[0] = len(body["prompt"])
                reply = {{"content": "!"}}
            else:
                n = held[0]
                state = FIXED + PER_TOKEN * n + (BEND if n > 500 else 0)
                reply = {{"id_slot": 0, "n_saved": n, "n_written": 12 + 4 * n + state}}
            self.send_response(200)
            self.end_headers()
            self.wfile.write(json.dumps(reply).encode())

        def log_message(self, *args):
            pass

    HTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


def fake_binary(tmp_path, fixed=760, per_token=23052, bend=0):
    path = tmp_path / "bin" / "llama-server"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(FAKE.format(fixed=fixed, per_token=per_token, bend=bend)))
    path.chmod(0o755)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF fake")
    return path, model


def test_two_slot_saves_give_the_fixed_and_per_token_size_and_a_third_checks_them(tmp_path):
    binary, model = fake_binary(tmp_path, fixed=100, per_token=7)
    got = state_size.measure(binary, model, tmp_path, log=lambda m: None)
    assert (got["fixed"], got["per_token"]) == (100, 7)
    assert got["points"] == [[n, 100 + 7 * n] for n in state_size.PROMPT_LENGTHS]


def test_a_size_that_is_not_affine_is_refused(tmp_path):
    binary, model = fake_binary(tmp_path, bend=5)
    with pytest.raises(state_size.StateSizeError, match="not affine"):
        state_size.measure(binary, model, tmp_path, log=lambda m: None)


def test_the_size_is_measured_once_per_model_and_binary(tmp_path, monkeypatch):
    binary, model = fake_binary(tmp_path)
    first = state_size.kv_state_size(binary, model, tmp_path, log=lambda m: None)
    monkeypatch.setattr(state_size, "measure", lambda *a, **k: pytest.fail("measured twice"))
    assert state_size.kv_state_size(binary, model, tmp_path, log=lambda m: None) == first


def test_the_rule_takes_the_size_from_the_provenance():
    rec = calculator.load_recording(RECORDINGS / "t10-smollm2-llamacpp")
    server = rec.provenance["server"]
    saved = server.pop("kv_state", None)
    try:
        assert calculator.llamacpp_config(rec).state_bytes_per_token == 0  # unknown: no byte limit binds
        server["kv_state"] = {"fixed": 760, "per_token": 23052}
        config = calculator.llamacpp_config(rec)
        assert (config.state_bytes_fixed, config.state_bytes_per_token) == (760, 23052)
        assert config.state_size(1000) == 760 + 23052 * 1000
    finally:
        server.pop("kv_state", None)
        if saved is not None:
            server["kv_state"] = saved


def test_a_known_size_makes_the_byte_limit_bind():
    # 64 MiB holds about 2,900 tokens of SmolLM2-135M state: with the size, a saved prompt is
    # evicted and a later request misses; with size 0 the cache never fills.
    rec = calculator.load_recording(RECORDINGS / "t10-smollm2-llamacpp")
    unknown = calculator.analyze(rec, cache_ram_mib=64, state_bytes_fixed=0, state_bytes_per_token=0)
    known = calculator.analyze(rec, cache_ram_mib=64, state_bytes_fixed=760, state_bytes_per_token=23052)
    differ = [(a.session, a.round) for a, b in zip(unknown, known) if a.read != b.read]
    assert ("frozen-day1", 1) in differ
    assert LlamaCppConfig(cache_ram_mib=64, state_bytes_per_token=23052).limit_bytes == 64 * 2**20


@pytest.mark.server
@pytest.mark.skipif(__import__("os").environ.get("PREFIXLAB_REAL_SERVER") != "1",
                    reason="set PREFIXLAB_REAL_SERVER=1 to run the real llama-server")
def test_the_real_server_state_size_is_affine_and_matches_the_shipped_recording(tmp_path):
    from prefixlab.serving import server

    binary, model = server.build_server(), server.fetch_model()
    got = state_size.measure(binary, model, tmp_path, log=lambda m: None)
    shipped = calculator.load_recording(RECORDINGS / "t10-cache-ram-64").provenance["server"]["kv_state"]
    assert (got["fixed"], got["per_token"]) == (shipped["fixed"], shipped["per_token"])
