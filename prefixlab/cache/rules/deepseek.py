"""DeepSeek V4 context caching on disk: a request hits only a *whole* stored "cache prefix unit".

Source: https://api-docs.deepseek.com/guides/kv_cache (and the zh-cn copy
https://api-docs.deepseek.com/zh-cn/guides/kv_cache), read 2026-12-07 (stored copies). Because of
sliding-window attention "each cached prefix is an independent, complete unit. A subsequent request can
only hit the cache if it fully matches a cache prefix unit." Units are persisted:

1. at the end of each request's user input and at the end of the model's output;
2. at a common prefix the system detects across requests;
3. at fixed token intervals inside long inputs and outputs (the interval is not published).

The page's example: after A+B, the request A+B+C hits A+B. After A+B, the request A+C misses (A+C does
not fully match the unit A+B), but A is then persisted as a unit, so a later A+D hits A.

How we model it over token ids:
- read = the longest stored unit that is a prefix of the prompt (a unit is all or nothing);
- after the request: the prompt is a unit (end of the user input); the prompt plus the generated
  tokens is a unit (end of the model output; it matches the next request only if the chat template
  renders the answer back to the same tokens); the longest common prefix with any earlier prompt or
  unit, when it is longer than the read, is a unit (common-prefix detection);
- ``interval`` (ours: None = off, because DeepSeek does not publish the number): with a value, every
  multiple of it inside the prompt is a unit as well.

Choices where the page is silent (ours): a unit is never dropped by default (the page names no lifetime;
``ttl`` in seconds after the unit's last write or hit is a parameter; a unit unused for ``ttl`` seconds or more is gone); the read is capped at
``len(prompt) - 1`` like every engine we can read; ``write`` is 0 (DeepSeek bills no write: a miss
costs the miss price, a hit the hit price; https://api-docs.deepseek.com/quick_start/pricing).
Usage fields: ``prompt_cache_hit_tokens`` + ``prompt_cache_miss_tokens`` = ``prompt_tokens``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .base import Clock, Prediction, Request, Settings, block_name_at, check_order, common_prefix, configure

NAME = "deepseek"
LABEL = "DeepSeek V4(整单元命中)"
RULE = "DeepSeek"
PROVIDER = "deepseek"
TAKES = ()
API = True
SERVER = None
TTL_WRITES = False
SOURCE = "https://api-docs.deepseek.com/guides/kv_cache (read 2026-12-07)"


@dataclass(frozen=True)
class DeepSeekConfig(Settings):
    interval: int | None = None        # fixed-interval units inside long inputs; unpublished, so off by default
    keep_output_unit: bool = True      # store prompt + generated as a unit (end of the model output)
    detect_common_prefix: bool = True  # store the common prefix with earlier requests as a unit
    ttl: float | None = None           # seconds a unit lives after its last write or hit; unpublished: None = forever

    def __post_init__(self):
        if self.ttl is not None and self.ttl <= 0:
            raise ValueError(f"ttl must be > 0 seconds or None, got {self.ttl!r}")
        if self.interval is not None and (isinstance(self.interval, bool) or self.interval < 1):
            raise ValueError(f"interval must be a whole number of tokens >= 1 or None, got {self.interval!r}")


class DeepSeekCache:
    def __init__(self, config: DeepSeekConfig | None = None):
        self.config = config or DeepSeekConfig()
        self.units: dict[tuple[int, ...], str] = {}  # unit -> where it came from
        self.used: dict[tuple[int, ...], float] = {}  # unit -> last write or hit
        self._n = 0
        self._clock = Clock()

    def step(self, request: Request) -> Prediction:
        self._clock.advance(request.t)
        cfg, tokens, n = self.config, request.tokens, len(request)
        if cfg.ttl is not None:
            self.units = {u: o for u, o in self.units.items() if request.t - self.used[u] < cfg.ttl}
            self.used = {u: self.used[u] for u in self.units}
        read, matched, longest = 0, None, 0
        for unit, origin in self.units.items():
            longest = max(longest, common_prefix(unit, tokens))
            if len(unit) <= n - 1 and len(unit) > read and tokens[:len(unit)] == unit:
                read, matched = len(unit), origin
        label = f"request {self._n}" + (f" ({request.session})" if request.session else "")
        new = {tokens: f"input end of {label}"}
        if cfg.keep_output_unit and request.generated:
            new[tokens + request.generated] = f"output end of {label}"
        if cfg.detect_common_prefix and longest > read:
            new[tokens[:longest]] = f"common prefix found by {label}"
        if cfg.interval:
            for end in range(cfg.interval, n, cfg.interval):
                new[tokens[:end]] = f"interval unit of {label}"
        if read:
            self.used[tokens[:read]] = request.t  # a hit keeps its unit alive
        for unit, origin in new.items():
            self.units.setdefault(unit, origin)
            self.used[unit] = request.t
        self._n += 1
        notes = ()
        if longest > read:
            notes = (f"{longest} tokens match an earlier prompt, but only a whole unit counts: {read} read",)
        return Prediction(read=read, write=0, fresh=n - read, total=n,
                          matched_entry=f"unit <- {matched}" if matched else None, break_at=read,
                          break_block=block_name_at(request, read), rule=RULE, notes=notes)


def predict(requests: Iterable[Request], config: DeepSeekConfig | None = None, **overrides) -> list[Prediction]:
    config = configure(DeepSeekConfig, config, overrides)
    cache = DeepSeekCache(config)
    return [cache.step(r) for r in check_order(requests)]
