"""The llama.cpp rule against the real llama-server: every predicted cached count must equal the
server's ``timings.cache_n``. Prompts are token ids sent to /completion, so no tokenizer or template
is involved; the generated ids come back in the response (``return_tokens``).

Opt in like the other real-server tests: ``PREFIXLAB_REAL_SERVER=1 python -m pytest -m server``.
"""
import os
import random

import pytest

from prefixlab.cache.rules import Request
from prefixlab.cache.rules.llamacpp import LlamaCppConfig, LlamaCppServer
from prefixlab.serving.server import CONTEXT_SIZE, LlamaServer
from prefixlab.serving.client import ServerClient

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                       reason="set PREFIXLAB_REAL_SERVER=1 to run the real llama-server"),
]

# Saved-state size of one slot for SmolLM2-135M (30 layers, 3 KV heads x 64 dims, f16 K and V),
# from llama_kv_cache::state_write (src/llama-kv-cache.cpp:2071-2300): per cell pos + n_seq_id +
# seq_id (12 bytes) + 30 x (384 + 384) bytes of K and V rows; fixed: stream and cell counts,
# v_trans / n_layer / n_rot_k / n_rot_v, and a type + row-size header per layer for K and for V.
SMOLLM2_STATE = dict(state_bytes_per_token=12 + 30 * (384 + 384), state_bytes_fixed=4 + 4 + 16 + 30 * 12 * 2)


def completion(url, prompt):
    body = {"prompt": list(prompt), "n_predict": 4, "temperature": 0, "cache_prompt": True, "return_tokens": True}
    return ServerClient(url).completion(body)


def replay(extra_args, config, prompts):
    """Send the prompts in order and return (server cache_n, predicted read) per request."""
    out = []
    rule = LlamaCppServer(config)
    with LlamaServer(port=0, extra_args=extra_args) as srv:
        for i, prompt in enumerate(prompts):
            reply = completion(srv.url, prompt)
            generated = tuple(reply.get("tokens", []))
            predicted = rule.step(Request(tuple(prompt), generated, t=float(i)))
            out.append((reply["timings"]["cache_n"], predicted.read))
    return out


def scenario(seed=7):
    """Resends, extensions, unrelated prompts and old prompts coming back."""
    rng = random.Random(seed)

    def toks(n):
        return [rng.randrange(1000, 40000) for _ in range(n)]
    a, u, v = toks(300), toks(200), toks(250)
    return [a, a, a + toks(20), u, a + toks(30), v, u + toks(10), a[:100] + toks(200),
            a[:60] + toks(400), v + toks(5)]


@pytest.mark.parametrize("extra_args, config", [
    ([], LlamaCppConfig.single_slot(n_ctx=CONTEXT_SIZE)),                                  # our flags: -np 1
    (["--cache-ram", "0"], LlamaCppConfig.single_slot(cache_ram_mib=0, n_ctx=CONTEXT_SIZE)),
    (["-np", "-1"], LlamaCppConfig(n_ctx=CONTEXT_SIZE)),                                   # server default: 4 slots
    (["-np", "2"], LlamaCppConfig(n_slots=2, kv_unified=False, n_ctx=CONTEXT_SIZE)),
], ids=["np1", "np1-no-host-cache", "auto-slots", "np2"])
def test_rule_matches_the_server(extra_args, config):
    pairs = replay(extra_args, config, scenario())
    assert [s for s, _ in pairs] == [p for _, p in pairs]


@pytest.mark.parametrize("n_tokens, big_mib", [(15, 2), (60, 6)], ids=["evict-oldest", "state-over-limit"])
def test_byte_limits_match_the_server(n_tokens, big_mib):
    # 15-token prompts (+3 kept generated tokens): 1 MiB holds two states, 2 MiB all four.
    # 60-token prompts: one state is over 1 MiB, so with 1 MiB nothing is ever saved; 6 MiB holds four.
    rng = random.Random(11)
    prompts = [[rng.randrange(1000, 40000) for _ in range(n_tokens)] for _ in range(4)]
    prompts.append(prompts[0] + [rng.randrange(1000, 40000) for _ in range(5)])
    last = {}
    for mib in (1, big_mib):
        config = LlamaCppConfig.single_slot(cache_ram_mib=mib, n_ctx=CONTEXT_SIZE, **SMOLLM2_STATE)
        pairs = replay(["--cache-ram", str(mib)], config, prompts)
        assert [s for s, _ in pairs] == [p for _, p in pairs], mib
        last[mib] = pairs[-1][0]
    assert last[1] != last[big_mib]   # the limit decided whether the old prompt came back
