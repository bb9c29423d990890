"""Kimi (Moonshot) automatic prefix caching: longest prefix, hits at 1/10, writes billed by TTL.

Sources (read 2026-12-07):
- Moonshot's forum announcement "Context caching upgrade: 5 min / 1 hour TTL options",
  https://forum.moonshot.ai/t/context-caching-upgrade-5-min-1-hour-ttl-options/613 -- as quoted in the
  course's research notes; we could NOT open a stored copy of the page itself (see data/prices/SOURCES.md):
  matching prefixes are written automatically; a hit costs 1/10 of a miss; "Cache Write" is a separate
  line item with a TTL of ``5m`` (the default) or ``1h``, chosen with ``prompt_cache_options``.
  UNCONFIRMED (re-checked 2026-12-07): the post is still not in the stored copies; the Moonshot page we
  found (platform.moonshot.cn/docs/api/caching) documents only the legacy explicit ``/v1/caching`` API.
- THIRD-PARTY, measured by one client, not Moonshot: prefix matching aligns to 256-token chunks
  (https://raw.githubusercontent.com/Leechael/pi-provider-kimi-code/main/docs/caching.md, measured on
  the Kimi coding endpoint). ``chunk`` is a parameter; set ``chunk=1`` for no alignment.

How we model it: every prompt is stored; a request reads the longest common prefix with a live stored
prompt, rounded down to ``chunk`` and capped at ``len(prompt) - 1`` (ours, as for every rule);
``write`` = the prompt's own chunk-aligned length minus the read (the part newly stored, billed as
Cache Write at the TTL's price), split into ``write_5m`` / ``write_1h`` by ``ttl``.
Choices where the sources are silent (ours): no minimum length; a hit refreshes the entry's TTL;
an entry lives ``ttl`` seconds after its last write or hit; of two stored prompts that match
equally long, the older one is the hit (and is refreshed).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .base import Clock, Prediction, Request, Settings, block_name_at, check_order, common_prefix, configure

NAME = "kimi"
LABEL = "Kimi(自动前缀缓存)"
RULE = "Kimi"
PROVIDER = "kimi"
TAKES = ()
API = True
SERVER = None
TTL_WRITES = True
SOURCE = ("https://forum.moonshot.ai/t/context-caching-upgrade-5-min-1-hour-ttl-options/613 (as quoted, "
          "2026-12-07); 256-token chunks: third party (Leechael/pi-provider-kimi-code docs/caching.md)")

TTLS = {"5m": 300.0, "1h": 3600.0}


@dataclass(frozen=True)
class KimiConfig(Settings):
    ttl: str = "5m"        # prompt_cache_options TTL: "5m" (default) or "1h"
    chunk: int = 256       # THIRD-PARTY measurement (see the module docstring); 1 = no alignment
    min_tokens: int = 0    # no minimum is published

    def __post_init__(self):
        if self.ttl not in TTLS:
            raise ValueError(f"ttl must be one of {list(TTLS)}, got {self.ttl!r}")
        if isinstance(self.chunk, bool) or not isinstance(self.chunk, int) or self.chunk < 1:
            raise ValueError(f"chunk must be a whole number of tokens >= 1, got {self.chunk!r}")
        if self.min_tokens < 0:
            raise ValueError("min_tokens must be >= 0")


def aligned(tokens: int, chunk: int) -> int:
    return chunk * (tokens // chunk)


class KimiCache:
    def __init__(self, config: KimiConfig | None = None):
        self.config = config or KimiConfig()
        self.prompts: dict[tuple[int, ...], tuple[float, str]] = {}  # prompt -> (last write or hit, origin)
        self._n = 0
        self._clock = Clock()

    def step(self, request: Request) -> Prediction:
        self._clock.advance(request.t)
        cfg, t, n = self.config, request.t, len(request)
        life = TTLS[cfg.ttl]
        self.prompts = {p: v for p, v in self.prompts.items() if t - v[0] < life}
        best, best_key = 0, None
        for p in self.prompts:
            lcp = common_prefix(p, request.tokens)
            if lcp > best:
                best, best_key = lcp, p
        read = aligned(min(best, n - 1), cfg.chunk)
        if read < cfg.min_tokens:
            read = 0
        matched = None
        if read and best_key is not None:
            matched = f"prefix cache <- {self.prompts[best_key][1]}"
            self.prompts[best_key] = (t, self.prompts[best_key][1])
        label = f"request {self._n}" + (f" ({request.session})" if request.session else "")
        stored = aligned(n, cfg.chunk) if n >= cfg.min_tokens else 0
        write = max(0, stored - read)
        if stored:
            kept = self.prompts.get(request.tokens)
            self.prompts[request.tokens] = (t, kept[1] if kept else label)
        self._n += 1
        split = {"write_5m": write} if cfg.ttl == "5m" else {"write_1h": write}
        return Prediction(read=read, write=write, fresh=n - read, total=n, matched_entry=matched,
                          break_at=best, break_block=block_name_at(request, best), rule=RULE, **split)


def predict(requests: Iterable[Request], config: KimiConfig | None = None, **overrides) -> list[Prediction]:
    config = configure(KimiConfig, config, overrides)
    cache = KimiCache(config)
    return [cache.step(r) for r in check_order(requests)]
