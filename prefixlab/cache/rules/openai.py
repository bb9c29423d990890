"""OpenAI automatic prompt caching for models before GPT-5.6 ("classic"): longest prefix, no write fee.

Sources:
- developers.openai.com/api/docs/guides/prompt-caching, stored copies idx:46892174861 (about late
  2025) and idx:68323447286 (clipped 2026-09-20): automatic for prompts of >= 1,024 tokens (the newer
  copy: the minimum "varies by request settings" before GPT-5.6); ``cached_tokens`` is 0 below it;
  no write fee. Retention: ``in_memory`` "Entries typically remain active for around 5 to 10 minutes
  of inactivity, up to one hour"; ``24h`` "typically keeps entries available for around 30 minutes
  and can retain them for up to 24 hours", supported by gpt-5.5, gpt-5.5-pro, gpt-5.4, gpt-5.2,
  gpt-5.1 (and its codex/chat variants), gpt-5, gpt-5-codex and gpt-4.1; "Organizations without
  Zero Data Retention enabled default to 24h".
- openai.com/index/api-prompt-caching (2024-10, quoted in idx:19197035559): "caches the longest
  prefix ... starting at 1,024 tokens and increasing in 128-token increments".

INFERENCE, not a documented formula: ``cached = 0 if L < 1024 else 1024 + 128 * floor((L - 1024) / 128)``
where L is the longest common prefix with an earlier prompt still in the cache. The newer guide
describes implicit breakpoints at "model-dependent intervals" (2,048 tokens on GPT-5.5) with the
reported value rounded down to 128; give ``step=2048`` to model GPT-5.5 that way.

Choices where the docs are silent (ours):
- L is capped at ``len(prompt) - 1``: an exact resend (e.g. of 1,152 = 1,024 + 128 tokens) reads one
  128-step less than the whole prompt. No OpenAI page says whether the last token is held back;
  every engine we can read does hold it back (llama.cpp, mlx_lm, vLLM), so we do too.
- lifetimes: an entry is gone once ``t - last use >= idle_ttl`` or ``t - first write >= max_age``.
  ``in_memory``: idle 300 s (the low end of "5 to 10 minutes"), at most 3,600 s; ``24h``: idle
  1,800 s ("around 30 minutes"), at most 86,400 s.
- every prompt of >= min_tokens is stored (a stored strict prefix of it is dropped: it can never match
  longer); a hit refreshes the stored prompt's idle timer; of two stored prompts that match equally
  long, the older one is the hit (and is refreshed).

Not modelled: routing by the first tokens + ``prompt_cache_key`` and overflow above ~15 requests per
minute (a real request can miss on another machine), hidden system tokens, and GPT-5.6 and later,
which cache at breakpoints (``prefixlab.cache.rules.openai_breakpoints``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..models import normalize_model
from .base import Clock, Prediction, Request, Settings, block_name_at, check_order, common_prefix, configure

# What the calculator, the lab and the report know about this rule (see prefixlab.cache.rules)
NAME = "openai"
LABEL = "OpenAI(GPT-5.6 之前)"
RULE = "OpenAI"
PROVIDER = "openai"
TAKES = ("model",)
API = True
SERVER = None
TTL_WRITES = False
SOURCE = "https://developers.openai.com/api/docs/guides/prompt-caching (read 2026-12-07); https://openai.com/index/api-prompt-caching"


# Lifetimes per retention setting, in seconds: (idle, at most) -- see the module docstring.
RETENTION = {"in_memory": (300.0, 3600.0), "24h": (1800.0, 86400.0)}
EXTENDED_RETENTION_MODELS = ("gpt-5-5", "gpt-5-5-pro", "gpt-5-4", "gpt-5-2", "gpt-5-1-codex-max", "gpt-5-1",
                             "gpt-5-1-codex", "gpt-5-1-codex-mini", "gpt-5-1-chat-latest", "gpt-5",
                             "gpt-5-codex", "gpt-4-1")


@dataclass(frozen=True)
class OpenAIConfig(Settings):
    min_tokens: int = 1024
    step: int = 128
    retention: str = "in_memory"    # "in_memory" or "24h" (the prompt_cache_retention parameter)
    idle_ttl: float | None = None   # seconds; None = the retention's value
    max_age: float | None = None    # seconds; None = the retention's value

    def __post_init__(self):
        if self.min_tokens < 1 or self.step < 1:
            raise ValueError("min_tokens and step must be >= 1")
        if self.retention not in RETENTION:
            raise ValueError(f"retention must be one of {list(RETENTION)}, got {self.retention!r}")
        for name in ("idle_ttl", "max_age"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be > 0 seconds or None, got {value}")

    @property
    def lifetimes(self) -> tuple[float, float]:
        idle, most = RETENTION[self.retention]
        return (self.idle_ttl or idle, self.max_age or most)


def default_retention(model: str) -> str:
    """What an organisation without Zero Data Retention gets: 24h where the model supports it."""
    return "24h" if normalize_model(model) in EXTENDED_RETENTION_MODELS else "in_memory"


def model_settings(model: str) -> dict:
    """``predict`` keywords for a model: its default retention."""
    return {"retention": default_retention(model)}


def cached_tokens(matched: int, min_tokens: int = 1024, step: int = 128) -> int:
    """Round a matched prefix length down to the cache's granularity (the inferred formula)."""
    if matched < min_tokens:
        return 0
    return min_tokens + step * ((matched - min_tokens) // step)


class OpenAICache:
    def __init__(self, config: OpenAIConfig | None = None):
        self.config = config or OpenAIConfig()
        self.prompts: dict[tuple[int, ...], tuple[float, str, float]] = {}  # prompt -> (last used, origin, written)
        self._n = 0
        self._clock = Clock()

    def step(self, request: Request) -> Prediction:
        self._clock.advance(request.t)
        t, cfg = request.t, self.config
        idle, most = cfg.lifetimes
        self.prompts = {p: v for p, v in self.prompts.items() if t - v[0] < idle and t - v[2] < most}
        best, best_key = 0, None
        for p in self.prompts:
            lcp = common_prefix(p, request.tokens)
            if lcp > best:
                best, best_key = lcp, p
        # an exact resend still computes its last token (see the module docstring)
        read = cached_tokens(min(best, len(request) - 1), cfg.min_tokens, cfg.step)
        matched = None
        if read and best_key is not None:
            last_used, origin, written = self.prompts[best_key]
            matched = f"prompt cache <- {origin}"
            self.prompts[best_key] = (t, origin, written)
        label = f"request {self._n}" + (f" ({request.session})" if request.session else "")
        if len(request) >= cfg.min_tokens:
            # a stored strict prefix can never match longer than the new prompt: drop it
            self.prompts = {p: v for p, v in self.prompts.items()
                            if not (len(p) < len(request) and request.tokens[:len(p)] == p)}
            kept = self.prompts.get(request.tokens)
            self.prompts[request.tokens] = (t, kept[1], kept[2]) if kept else (t, label, t)
        self._n += 1
        n = len(request)
        return Prediction(read=read, write=0, fresh=n - read, total=n, matched_entry=matched,
                          break_at=best, break_block=block_name_at(request, best), rule=RULE)


def predict(requests: Iterable[Request], config: OpenAIConfig | None = None, **overrides) -> list[Prediction]:
    config = configure(OpenAIConfig, config, overrides)
    cache = OpenAICache(config)
    return [cache.step(r) for r in check_order(requests)]
