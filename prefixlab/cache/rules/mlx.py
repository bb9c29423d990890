"""mlx_lm.server's prompt cache: an LRU of whole prompts (default 10) searched by longest prefix.

Source: ml-explore/mlx-lm@d78bf58e217c904ec282ed8da9b947491f78c022 (v0.32.0, 2026-08-22), read 2026-12-02:
- ``LRUPromptCache(max_size=--prompt-cache-size)``, default 10: mlx_lm/server.py:1712,1840-1845
- lookup ``fetch_nearest_cache``: mlx_lm/models/cache.py:1683-1703, over ``PromptTrie.search`` 1587-1629
- reported ``cached_tokens = len(prompt) - len(rest)``: mlx_lm/server.py:913 (and 691), 1293-1296
- insert key = prompt + every generated token: mlx_lm/server.py:914,955,968-970 (batched path: 849-853)
- insert: re-inserting refreshes recency; for trimmable (plain KV) caches every stored strict prefix
  of the key is deleted; at most one entry is evicted per insert: mlx_lm/models/cache.py:1705-1746
- eviction order over the "assistant"/"user"/"system" deques: mlx_lm/models/cache.py:1658-1666
- a lookup does not refresh recency (fetch_nearest_cache never touches the LRU).

The lookup, as the trie computes it (cache.py:1587-1629 and 1683-1703):
- a stored key equal to the prompt -> ``cached = len(prompt)`` (rest is empty);
- else, if some stored key shares more tokens with the prompt (``common``) than the longest stored
  key that is a prefix of the prompt (``shorter``; only keys of >= 2 tokens count, ``last_index > 0``),
  that key is copied and trimmed: ``cached = min(len(prompt) - 1, common)``;
- else ``cached = len(shorter)``; else 0.

Not modelled: the batched generation path's extra snapshots at segment ends (server.py:544-600,
800-815; used when the model is batchable and no seed is given) and the byte limit
``--prompt-cache-bytes`` (no default); non-trimmable (SSM/hybrid) caches are a flag.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable

from .base import Clock, Prediction, Request, Settings, block_name_at, check_order, common_prefix, configure

# What the calculator, the lab and the report know about this rule (see prefixlab.cache.rules)
NAME = "mlx"
LABEL = "mlx_lm.server"
RULE = "mlx_lm"
PROVIDER = None
TAKES = ()
API = False
SERVER = None
TTL_WRITES = False
SOURCE = "ml-explore/mlx-lm@d78bf58e217c904ec282ed8da9b947491f78c022:mlx_lm/models/cache.py:1541-1746"

CACHE_TYPES = ("assistant", "user", "system")  # eviction order of the three deques


@dataclass(frozen=True)
class MlxConfig(Settings):
    max_size: int = 10      # --prompt-cache-size
    trimmable: bool = True  # plain KV caches can be trimmed; SSM/hybrid caches cannot

    def __post_init__(self):
        if self.max_size < 1:
            raise ValueError(f"max_size must be >= 1, got {self.max_size}")


class MlxServer:
    def __init__(self, config: MlxConfig | None = None):
        self.config = config or MlxConfig()
        self.entries: dict[tuple[int, ...], str] = {}  # key -> origin label
        self._lrus = {k: deque() for k in CACHE_TYPES}
        self._n = 0
        self._clock = Clock()

    def __len__(self):
        return len(self.entries)

    def _pop_lru(self) -> tuple[int, ...]:
        # CacheOrder.pop (cache.py:1658-1666): oldest "assistant" if that deque is at least as long as "user", ...
        i = 0
        while i + 1 < len(CACHE_TYPES):
            a, b = self._lrus[CACHE_TYPES[i]], self._lrus[CACHE_TYPES[i + 1]]
            if a and len(a) >= len(b):
                return a.popleft()
            i += 1
        return self._lrus[CACHE_TYPES[-1]].popleft()

    def _remove_lru(self, key):
        for t in CACHE_TYPES:
            if key in self._lrus[t]:
                self._lrus[t].remove(key)
                return

    def lookup(self, tokens: tuple[int, ...]) -> tuple[int, tuple[int, ...] | None, int]:
        """Return (cached, matched key, break_at) like fetch_nearest_cache."""
        if tokens in self.entries:
            return len(tokens), tokens, len(tokens)
        common, longer = 0, None
        shorter = None
        for key in self.entries:
            lcp = common_prefix(key, tokens)
            if lcp == len(key) and lcp >= 2 and (shorter is None or lcp > len(shorter)):
                shorter = key
            if lcp > common or (lcp == common and longer is not None and len(key) < len(longer)):
                common, longer = lcp, key
        short_length = len(shorter) if shorter else 0
        if longer is not None and common > short_length and self.config.trimmable:
            return min(len(tokens) - 1, common), longer, common
        if short_length > 0:
            return short_length, shorter, short_length
        return 0, None, common

    def insert(self, key: tuple[int, ...], origin: str) -> list[str]:
        events = []
        if key in self.entries:
            self._remove_lru(key)
        self.entries[key] = origin
        self._lrus["assistant"].append(key)
        if self.config.trimmable:
            for other in [k for k in self.entries if len(k) < len(key) and key[:len(k)] == k]:
                events.append(f"dropped {self.entries.pop(other)} (a prefix of the new key)")
                self._remove_lru(other)
        if len(self.entries) > self.config.max_size:
            old = self._pop_lru()
            events.append(f"evicted {self.entries.pop(old)} (LRU)")
        return events

    def step(self, request: Request) -> Prediction:
        self._clock.advance(request.t)
        cached, key, break_at = self.lookup(request.tokens)
        matched = None if key is None or cached == 0 else f"prompt cache <- {self.entries[key]}"
        label = f"request {self._n}" + (f" ({request.session})" if request.session else "")
        events = self.insert(request.tokens + request.generated, label)
        self._n += 1
        fresh = len(request) - cached
        return Prediction(
            read=cached, write=fresh, fresh=fresh, total=len(request),
            matched_entry=matched,
            break_at=break_at, break_block=block_name_at(request, break_at), rule=RULE, notes=tuple(events))


def predict(requests: Iterable[Request], config: MlxConfig | None = None, **overrides) -> list[Prediction]:
    config = configure(MlxConfig, config, overrides)
    server = MlxServer(config)
    return [server.step(r) for r in check_order(requests)]
