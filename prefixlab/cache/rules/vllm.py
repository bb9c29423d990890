"""vLLM automatic prefix caching (V1): a hash chain over full KV blocks, LRU over free blocks.

Sources (read 2026-12-02):
- design: docs.vllm.ai/en/latest/design/prefix_caching (block hash = hash(parent hash, block tokens,
  extras)); only full blocks are cached; default block size 16 on CUDA (hybrid models use larger,
  e.g. 528: github.com/vllm-project/vllm/issues/40696).
- ``get_computed_blocks``: ``max_cache_hit_length = request.num_tokens - 1`` ("must recompute the last
  token to obtain logits"), vllm/v1/core/kv_cache_manager.py, stored copy idx:35989686307.
  Hence ``cached = floor((N - 1) / B) * B`` when every block is cached.
- eviction: LRU over blocks nobody references; ``KVCacheManager.free``: "We free the blocks in
  reverse order so that the tail blocks are evicted first" (same stored copy); prompt_logprobs
  requests skip the cache (same function).

Model here: after a request, every full block of ``prompt + generated[:-1]`` (the computed tokens)
is in the cache. ``write`` = tokens of prompt blocks that were not cached before. With
``num_blocks`` set, the oldest free blocks are evicted after each request (blocks in use during a
request are not simulated). Not modelled: ``prompt_logprobs`` requests (they skip the cache),
LoRA/multimodal/cache_salt extras (they change the hash), KV-cache groups of hybrid models.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable

from .base import Prediction, Request, Settings, block_name_at, check_order, configure

# What the calculator, the lab and the report know about this rule (see prefixlab.cache.rules)
NAME = "vllm"
LABEL = "vLLM"
RULE = "vLLM"
PROVIDER = None
TAKES = ()
API = False
SERVER = None
TTL_WRITES = False
SOURCE = "https://docs.vllm.ai/en/latest/design/prefix_caching.html; vllm/v1/core/kv_cache_manager.py"


@dataclass(frozen=True)
class VllmConfig(Settings):
    block_size: int = 16
    num_blocks: int | None = None  # cache capacity in blocks; None = unlimited

    def __post_init__(self):
        if self.block_size < 1:
            raise ValueError(f"block_size must be >= 1, got {self.block_size}")
        if self.num_blocks is not None and self.num_blocks < 1:
            raise ValueError(f"num_blocks must be >= 1 or None, got {self.num_blocks}")


def block_hashes(tokens: tuple[int, ...], block_size: int) -> list[bytes]:
    """Chained hashes of the full blocks: block i's hash covers tokens[0:(i+1)*B]."""
    out, parent = [], b""
    for i in range(len(tokens) // block_size):
        chunk = tokens[i * block_size:(i + 1) * block_size]
        parent = hashlib.sha256(parent + b"|" + ",".join(map(str, chunk)).encode()).digest()
        out.append(parent)
    return out


class VllmServer:
    def __init__(self, config: VllmConfig | None = None):
        self.config = config or VllmConfig()
        self.blocks: OrderedDict[bytes, str] = OrderedDict()  # hash -> origin; first = evicted first
        self._n = 0
        self._last_t: float | None = None

    def step(self, request: Request) -> Prediction:
        if self._last_t is not None and request.t < self._last_t:
            raise ValueError(f"request t={request.t} is before the previous request (t={self._last_t})")
        self._last_t = request.t
        B = self.config.block_size
        n = len(request)
        prompt_chain = block_hashes(request.tokens, B)
        hits = 0
        while hits < len(prompt_chain) and prompt_chain[hits] in self.blocks:
            hits += 1
        max_hit_blocks = (n - 1) // B  # max_cache_hit_length = num_tokens - 1
        cached = min(hits, max_hit_blocks) * B
        matched = f"blocks <- {self.blocks[prompt_chain[cached // B - 1]]}" if cached else None
        new_prompt_blocks = sum(1 for h in prompt_chain if h not in self.blocks)

        label = f"request {self._n}" + (f" ({request.session})" if request.session else "")
        chain = block_hashes(request.tokens + request.generated[:-1], B)
        for h in chain:
            self.blocks.setdefault(h, label)
        for h in reversed(chain):  # freed tail first: the tail is evicted before the prefix
            self.blocks.move_to_end(h)
        events = []
        if self.config.num_blocks is not None:
            while len(self.blocks) > self.config.num_blocks:
                _, origin = self.blocks.popitem(last=False)
                events.append(f"evicted a block of {origin}")
        self._n += 1
        break_at = min(n, hits * B)
        return Prediction(
            read=cached, write=new_prompt_blocks * B, fresh=n - cached, total=n,
            matched_entry=matched, break_at=break_at, break_block=block_name_at(request, break_at),
            rule=RULE, notes=tuple(events))


def predict(requests: Iterable[Request], config: VllmConfig | None = None, **overrides) -> list[Prediction]:
    config = configure(VllmConfig, config, overrides)
    server = VllmServer(config)
    return [server.step(r) for r in check_order(requests)]
