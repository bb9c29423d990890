"""Qwen on Alibaba Cloud Model Studio (百炼): implicit cache (automatic) or explicit cache (markers).

Source: 百炼 "上下文缓存(Context Cache)", read 2026-12-07 (stored copies):
https://help.aliyun.com/model-studio/context-cache (newer copy) and
https://help.aliyun.com/zh/model-studio/user-guide/context-cache (older copy); English:
https://www.alibabacloud.com/help/en/model-studio/context-cache ("Last Updated: Oct 11, 2026").

- Implicit cache: automatic, cannot be turned off, prefix matching, hit not guaranteed; a hit is billed
  at 20 % of the input price, creating the cache at 100 % (so no write fee); the lifetime is not
  stated ("the system periodically clears data unused for a long time").
- Explicit cache: ``cache_control: {"type": "ephemeral"}`` markers, at most 4 per request; from each
  marker the system looks back at most 20 content blocks for a hit and takes the longest matching
  prefix; on a miss it creates a cache block from the start of ``messages`` to the marker (at least
  1,024 tokens); creation is billed at 125 %, a hit at 10 %; 5 minutes, reset on a hit.
- The two modes are mutually exclusive per request.

DISAGREEMENT between the provider's own pages: the implicit cache's minimum is 256 tokens on the older
copy (and the March 2026 English copy) and 1,024 tokens on the newer copy. The rule takes the newer
page (``implicit_min_tokens=1024``); give 256 to model the older one.

How we model it: implicit -- every prompt of at least the minimum is stored; a request reads the
longest common prefix with a stored prompt (best case: every possible hit hits), capped at
``len(prompt) - 1`` (ours); of two stored prompts that match equally long, the older one is the hit
(ours); no lifetime (``implicit_ttl=None``; ours, the page states none).
Explicit -- with ``breakpoints`` (block names; at most 4), or ``mode="explicit"`` without them
(then one marker on the last block, ours), a request reads the deepest block end within 20 blocks
before a marker whose prefix is a live entry; it writes an entry at every marker of >= 1,024 tokens;
``write`` = the deepest written marker minus the read. Giving breakpoints makes the request explicit
(the modes exclude each other). Not modelled: the creation happening after the response (two requests
in flight at once), non-text content.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .base import Block, Clock, Prediction, Request, Settings, block_name_at, check_order, common_prefix, configure

NAME = "qwen"
LABEL = "Qwen 百炼(隐式/显式缓存)"
RULE = "Qwen"
RULE_EXPLICIT = "Qwen explicit"
PROVIDER = "qwen"
TAKES = ("breakpoints",)
API = True
SERVER = None
TTL_WRITES = True
SOURCE = "https://help.aliyun.com/model-studio/context-cache (read 2026-12-07)"

MAX_MARKERS = 4
LOOKBACK = 20


@dataclass(frozen=True)
class QwenConfig(Settings):
    mode: str = "implicit"                 # "implicit" or "explicit"; breakpoints make it explicit
    breakpoints: tuple[str, ...] = ()      # explicit markers, by block name
    implicit_min_tokens: int = 1024        # 1,024 newer page; 256 older page (they disagree)
    explicit_min_tokens: int = 1024
    implicit_ttl: float | None = None      # not stated by the provider
    explicit_ttl: float = 300.0            # 5 minutes, reset on a hit

    def __post_init__(self):
        object.__setattr__(self, "breakpoints", tuple(self.breakpoints))
        if self.mode not in ("implicit", "explicit"):
            raise ValueError(f"mode must be 'implicit' or 'explicit', got {self.mode!r}")
        if len(self.breakpoints) > MAX_MARKERS:
            raise ValueError(f"{len(self.breakpoints)} cache_control markers; a request may carry at most {MAX_MARKERS}")
        if self.implicit_min_tokens < 1 or self.explicit_min_tokens < 1 or self.explicit_ttl <= 0:
            raise ValueError("minimums must be >= 1 and explicit_ttl > 0")
        if self.implicit_ttl is not None and self.implicit_ttl <= 0:
            raise ValueError("implicit_ttl must be > 0 seconds or None")

    @property
    def explicit(self) -> bool:
        return self.mode == "explicit" or bool(self.breakpoints)


class QwenCache:
    def __init__(self, config: QwenConfig | None = None):
        self.config = config or QwenConfig()
        self.implicit: dict[tuple[int, ...], tuple[float, str]] = {}
        self.explicit: dict[tuple[int, ...], tuple[float, str]] = {}
        self._n = 0
        self._clock = Clock()

    def _label(self, request: Request) -> str:
        return f"request {self._n}" + (f" ({request.session})" if request.session else "")

    def step(self, request: Request) -> Prediction:
        self._clock.advance(request.t)
        prediction = self._explicit(request) if self.config.explicit else self._implicit(request)
        self._n += 1
        return prediction

    def _implicit(self, request: Request) -> Prediction:
        cfg, t, n = self.config, request.t, len(request)
        if cfg.implicit_ttl is not None:
            self.implicit = {p: v for p, v in self.implicit.items() if t - v[0] < cfg.implicit_ttl}
        best, key = 0, None
        for p in self.implicit:
            lcp = common_prefix(p, request.tokens)
            if lcp > best:
                best, key = lcp, p
        read = min(best, n - 1)
        if read < cfg.implicit_min_tokens:
            read = 0
        matched = None
        if read and key is not None:
            matched = f"implicit cache <- {self.implicit[key][1]}"
            self.implicit[key] = (t, self.implicit[key][1])
        if n >= cfg.implicit_min_tokens:
            kept = self.implicit.get(request.tokens)
            self.implicit[request.tokens] = (t, kept[1] if kept else self._label(request))
        return Prediction(read=read, write=0, fresh=n - read, total=n, matched_entry=matched, break_at=best,
                          break_block=block_name_at(request, best), rule=RULE)

    def _explicit(self, request: Request) -> Prediction:
        cfg, t, n = self.config, request.t, len(request)
        self.explicit = {p: v for p, v in self.explicit.items() if t - v[0] < cfg.explicit_ttl}
        blocks = list(request.blocks) or [Block("user#0", "message", 0, n)]
        index = {b.name: i for i, b in enumerate(blocks)}
        unknown = [name for name in cfg.breakpoints if name not in index]
        if unknown:
            raise ValueError(f"cache_control marker on unknown block {unknown[0]!r}; this request has: "
                             f"{', '.join(index)}")
        markers = [index[name] for name in cfg.breakpoints] or [len(blocks) - 1]
        candidates = {blocks[j].end for m in markers for j in range(max(0, m - LOOKBACK + 1), m + 1)}
        read, matched = 0, None
        for end in sorted(candidates, reverse=True):  # the longest matching prefix
            key = request.tokens[:end]
            if 0 < end < n and key in self.explicit:
                read, matched = end, f"explicit cache <- {self.explicit[key][1]}"
                self.explicit[key] = (t, self.explicit[key][1])  # a hit resets the 5 minutes
                break
        written = 0
        for m in markers:
            end = blocks[m].end
            if end < cfg.explicit_min_tokens:
                continue
            key = request.tokens[:end]
            if key not in self.explicit:
                self.explicit[key] = (t, self._label(request))
                written = max(written, end)
        write = max(0, written - read)
        notes = () if written or read else ("no marker reaches the explicit minimum: nothing is cached",)
        return Prediction(read=read, write=write, fresh=n - read, total=n, matched_entry=matched, break_at=read,
                          break_block=block_name_at(request, read), write_5m=write, rule=RULE_EXPLICIT, notes=notes)


def predict(requests: Iterable[Request], config: QwenConfig | None = None, **overrides) -> list[Prediction]:
    config = configure(QwenConfig, config, overrides)
    cache = QwenCache(config)
    return [cache.step(r) for r in check_order(requests)]
