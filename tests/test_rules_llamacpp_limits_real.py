"""The llama.cpp rule at the server's limits, against the real llama-server: prompts a slot cannot
hold (refused with HTTP 400, the slot left as it was), the padded per-slot context of ``-np 3``, and
``--cache-reuse``. Prompts are token ids sent to /completion (no tokenizer or template involved).

Opt in like the other real-server tests: ``PREFIXLAB_REAL_SERVER=1 python -m pytest -m server``.
"""
import os
import random

import pytest

from prefixlab.cache.rules import Request
from prefixlab.cache.rules.llamacpp import LlamaCppConfig, LlamaCppServer
from prefixlab.serving.client import ServerClient, ServerError
from prefixlab.serving.server import LlamaServer

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                       reason="set PREFIXLAB_REAL_SERVER=1 to run the real llama-server"),
]


def send(url, prompt, **fields):
    """(cache_n, generated ids) of a served prompt, or (the error text, ()) of a refused one."""
    body = {"prompt": list(prompt), "n_predict": 3, "temperature": 0, "cache_prompt": True,
            "return_tokens": True, **fields}
    try:
        reply = ServerClient(url, timeout=600).completion(body)
    except ServerError as err:
        assert err.status == 400, err
        return str(err), ()
    return reply["timings"]["cache_n"], tuple(reply.get("tokens", []))


def check(extra_args, config, prompts):
    """Send each prompt, step the rule with what came back, and compare request by request."""
    rule = LlamaCppServer(config)
    measured, predicted = [], []
    with LlamaServer(port=0, extra_args=extra_args) as srv:
        for i, prompt in enumerate(prompts):
            got, generated = send(srv.url, prompt)
            p = rule.step(Request(tuple(prompt), generated, t=float(i)))
            measured.append("refused" if isinstance(got, str) else got)
            predicted.append("refused" if p.refused else p.read)
            if isinstance(got, str):
                assert "exceeds the available context size" in got and p.refused
    assert measured == predicted
    return measured


def tokens(rng, n):
    return [rng.randrange(1000, 40000) for _ in range(n)]


def test_over_context_prompts_are_refused_and_leave_the_slot():
    rng = random.Random(3)
    a, u = tokens(rng, 400), tokens(rng, 300)
    prompts = [a, a + tokens(rng, 1700),      # 2,100 >= 2,048: refused, picked by similarity
               a + tokens(rng, 20),           # still reads a from the slot
               tokens(rng, 2048),             # exactly the context: refused (>=), LRU with host-cache save
               u, a + tokens(rng, 9)]         # a comes back from the host cache
    got = check(["-c", "2048"], LlamaCppConfig.single_slot(n_ctx=2048), prompts)
    assert got.count("refused") == 2


def test_three_slots_get_a_padded_context_each():
    rng = random.Random(5)
    prompts = [tokens(rng, 2815), tokens(rng, 2816)]    # 8192 / 3 padded to 2,816 per slot
    got = check(["-np", "3", "--cache-ram", "0"],
                LlamaCppConfig(n_slots=3, kv_unified=False, n_ctx=8192, cache_ram_mib=0), prompts)
    assert got[0] != "refused" and got[1] == "refused"


def test_cache_reuse_shifts_chunks_into_place():
    rng = random.Random(9)
    head, middle, tail, short = tokens(rng, 300), tokens(rng, 400), tokens(rng, 300), tokens(rng, 120)
    prompts = [head + middle + tail, head + tail + tokens(rng, 5),     # the tail chunk is reused
               head + middle + short, head + short + tokens(rng, 5)]   # 120 < 256: only the head
    config = LlamaCppConfig.single_slot(n_ctx=8192, cache_reuse=256, cache_ram_mib=0)
    got = check(["--cache-reuse", "256", "--cache-ram", "0"], config, prompts)
    assert got[1] > 300 and got[3] == 300
