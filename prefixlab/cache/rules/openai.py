"""OpenAI automatic prompt caching (classic behaviour): 1,024-token minimum, 128-token steps.

Sources (read 2026-12-02):
- developers.openai.com/api/docs/guides/prompt-caching, stored copy idx:46892174861 (about late 2025):
  automatic for prompts of >= 1,024 tokens; ``cached_tokens`` is 0 below that; no write fee;
  in-memory retention of 5-10 minutes idle (at most 1 h); the guide's example 1,920 = 1,024 + 7 x 128.
- openai.com/index/api-prompt-caching (2024-10, quoted in idx:19197035559): "caches the longest
  prefix ... starting at 1,024 tokens and increasing in 128-token increments".

INFERENCE, not a documented formula: ``cached = 0 if L < 1024 else 1024 + 128 * floor((L - 1024) / 128)``
where L is the longest common prefix with an earlier prompt still in the cache.

Choices: every prompt of >= min_tokens is stored (a stored strict prefix of it is dropped, it can
never match longer); a hit refreshes the stored prompt's idle timer; ``cached`` may equal the whole
prompt when its length is 1,024 + k x 128 (the docs do not say whether the last token is held back).

Not modelled: routing by the first ~256 tokens + ``prompt_cache_key`` and overflow above ~15 RPM
(a real request can miss on another machine), ``24h`` retention, and the GPT-5.6+ scheme
(explicit/implicit breakpoints, 1.25x writes, ``cache_write_tokens``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .base import Prediction, Request, Settings, block_name_at, check_order, common_prefix, configure

# What the calculator, the lab and the report know about this rule (see prefixlab.cache.rules)
NAME = "openai"
LABEL = "OpenAI"
RULE = "OpenAI"
TAKES = ()
API = True
SERVER = None
TTL_WRITES = False
SOURCE = "developers.openai.com/api/docs/guides/prompt-caching (idx:46892174861); openai.com/index/api-prompt-caching"


@dataclass(frozen=True)
class OpenAIConfig(Settings):
    min_tokens: int = 1024
    step: int = 128
    idle_ttl: float | None = None  # seconds an unused prefix survives; None = never evicted

    def __post_init__(self):
        if self.min_tokens < 1 or self.step < 1:
            raise ValueError("min_tokens and step must be >= 1")
        if self.idle_ttl is not None and self.idle_ttl <= 0:
            raise ValueError(f"idle_ttl must be > 0 seconds or None, got {self.idle_ttl}")


def cached_tokens(matched: int, min_tokens: int = 1024, step: int = 128) -> int:
    """Round a matched prefix length down to the cache's granularity (the inferred formula)."""
    if matched < min_tokens:
        return 0
    return min_tokens + step * ((matched - min_tokens) // step)


class OpenAICache:
    def __init__(self, config: OpenAIConfig | None = None):
        self.config = config or OpenAIConfig()
        self.prompts: dict[tuple[int, ...], tuple[float, str]] = {}  # prompt -> (last used, origin)
        self._n = 0
        self._last_t: float | None = None

    def step(self, request: Request) -> Prediction:
        if self._last_t is not None and request.t < self._last_t:
            raise ValueError(f"request t={request.t} is before the previous request (t={self._last_t})")
        t, cfg = request.t, self.config
        self._last_t = t
        if cfg.idle_ttl is not None:
            self.prompts = {p: v for p, v in self.prompts.items() if t - v[0] < cfg.idle_ttl}
        best, best_key = 0, None
        for p in self.prompts:
            lcp = common_prefix(p, request.tokens)
            if lcp > best:
                best, best_key = lcp, p
        read = cached_tokens(best, cfg.min_tokens, cfg.step)
        matched = None
        if read and best_key is not None:
            matched = f"prompt cache <- {self.prompts[best_key][1]}"
            self.prompts[best_key] = (t, self.prompts[best_key][1])
        label = f"request {self._n}" + (f" ({request.session})" if request.session else "")
        if len(request) >= cfg.min_tokens:
            # a stored strict prefix can never match longer than the new prompt: drop it
            self.prompts = {p: v for p, v in self.prompts.items()
                            if not (len(p) < len(request) and request.tokens[:len(p)] == p)}
            self.prompts[request.tokens] = (t, label)
        self._n += 1
        n = len(request)
        return Prediction(read=read, write=0, fresh=n - read, total=n, matched_entry=matched,
                          break_at=best, break_block=block_name_at(request, best), rule=RULE)


def predict(requests: Iterable[Request], config: OpenAIConfig | None = None, **overrides) -> list[Prediction]:
    config = configure(OpenAIConfig, config, overrides)
    cache = OpenAICache(config)
    return [cache.step(r) for r in check_order(requests)]
