"""OpenAI prompt caching for GPT-5.6 and later: entries end at breakpoints, and writes are billed.

Source: developers.openai.com/api/docs/guides/prompt-caching, stored copy idx:68323447286 (clipped
2026-09-20), sections on GPT-5.6 and later (quotes shortened):

- "When ``prompt_cache_options.mode`` is ``implicit``, OpenAI places a breakpoint at the end of the
  latest eligible message. Eligible messages are: user messages; the last tool response in a
  consecutive group of tool responses; the last developer message in the initial consecutive group
  of developer messages." Explicit breakpoints (``prompt_cache_breakpoint``) mark further ends;
  "Each request can create up to four cache writes" (the implicit one uses one of them).
- "The first request writes an eligible prefix to the cache and subsequent requests look for the
  longest matching cached prefix available, working backward through eligible breakpoints until they
  find a match." Lookup boundaries in implicit mode: explicit breakpoints, "the implicit breakpoint,
  up to 20 earlier eligible message endings, and the endpoint of the initial consecutive block of
  developer messages". There is no fall-back to the longest unmarked prefix.
- "cache writes cost 1.25x the standard, uncached input-token rate ... subsequent reads cost only
  0.1x" (per-model prices in data/prices/openai.yml); "Content after the last selected breakpoint is
  processed at the uncached input-token rate without a cache-write charge."
- "A cached prefix remains eligible for reuse for 30 minutes after its most recent write or reuse";
  "reusing the prefix refreshes its lifetime without another cache-write charge".
- "The minimum cacheable prompt length is 1,024 tokens for GPT-5.6 and later"; cached tokens are the
  "Exact eligible boundary" (the SDK: "the boundary is not rounded to a token block").

Over our blocks (data/recordings/API-MAPPING.md): the system text and the tool definitions form the
initial developer block (the chat template renders the tools inside it); ``user#i`` blocks and the
last ``tool#i`` of a run are eligible message ends. An entry is the exact token prefix up to a
boundary. A request reads the deepest of its boundaries that has a live entry; it writes at its
implicit and explicit breakpoints (prefixes of >= 1,024 tokens); ``write`` is the deepest written
boundary minus ``read``; the rest is uncached.

Choices (ours): an entry is alive while ``t - last write or reuse < ttl``; hidden system tokens,
routing and the 12-hour write option are not modelled; the lookup limits on explicit breakpoints
("first 2 and latest 50") never bind for the four a request may set.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .base import Block, Clock, Prediction, Request, Settings, block_name_at, check_order, configure

NAME = "openai-breakpoints"
LABEL = "OpenAI(GPT-5.6 起,断点缓存)"
RULE = "OpenAI breakpoints"
PROVIDER = "openai"
TAKES = ("breakpoints",)
API = True
SERVER = None
TTL_WRITES = False
SOURCE = "https://developers.openai.com/api/docs/guides/prompt-caching (read 2026-12-07)"

MAX_WRITES = 4
EARLIER_ENDINGS = 20


@dataclass(frozen=True)
class BreakpointConfig(Settings):
    mode: str = "implicit"            # "implicit": OpenAI's breakpoint + explicit ones; "explicit": only those
    breakpoints: tuple[str, ...] = ()  # explicit breakpoints, by block name
    min_tokens: int = 1024
    ttl: float = 1800.0                # seconds after the most recent write or reuse

    def __post_init__(self):
        object.__setattr__(self, "breakpoints", tuple(self.breakpoints))
        if self.mode not in ("implicit", "explicit"):
            raise ValueError(f"mode must be 'implicit' or 'explicit', got {self.mode!r}")
        if self.min_tokens < 1 or self.ttl <= 0:
            raise ValueError("min_tokens must be >= 1 and ttl > 0")
        slots = MAX_WRITES - (self.mode == "implicit")
        if len(self.breakpoints) > slots:
            raise ValueError(f"{len(self.breakpoints)} explicit breakpoints; {self.mode} mode leaves {slots}")


def role_of(block_name: str) -> str:
    """'user#3' -> 'user'; 'tool#4' -> 'tool'."""
    return block_name.split("#", 1)[0]


def eligible_ends(request: Request) -> tuple[int | None, list[int]]:
    """(end of the initial developer block, ends of eligible messages in order).

    A request without blocks is one user message (as in the Anthropic rule)."""
    blocks = list(request.blocks) or [Block("user#0", "message", 0, len(request))]
    developer_end = None
    ends = []
    for i, b in enumerate(blocks):
        if b.kind in ("system", "tools") and not any(x.kind == "message" for x in blocks[:i]):
            developer_end = b.end
        if b.kind != "message":
            continue
        role = role_of(b.name)
        next_role = role_of(blocks[i + 1].name) if i + 1 < len(blocks) else None
        if role == "user" or (role == "tool" and next_role != "tool"):
            ends.append(b.end)
    return developer_end, ends


class BreakpointCache:
    def __init__(self, config: BreakpointConfig | None = None):
        self.config = config or BreakpointConfig()
        self.entries: dict[tuple[int, ...], tuple[float, str]] = {}  # prefix -> (last write or reuse, origin)
        self._n = 0
        self._clock = Clock()

    def step(self, request: Request) -> Prediction:
        self._clock.advance(request.t)
        t, cfg = request.t, self.config
        self.entries = {k: v for k, v in self.entries.items() if t - v[0] < cfg.ttl}
        developer_end, ends = eligible_ends(request)
        index = {b.name: b for b in request.blocks}
        unknown = [name for name in cfg.breakpoints if name not in index]
        if unknown:
            raise ValueError(f"breakpoint on unknown block {unknown[0]!r}; this request has: {', '.join(index)}")
        explicit = [index[name].end for name in cfg.breakpoints]
        implicit = ends[-1:] if cfg.mode == "implicit" else []

        lookup = set(explicit) | set(implicit)
        if cfg.mode == "implicit":
            lookup |= set(ends[-1 - EARLIER_ENDINGS:-1])
            if developer_end is not None:
                lookup.add(developer_end)
        read, matched = 0, None
        for end in sorted(lookup, reverse=True):  # the deepest boundary with a live entry
            key = request.tokens[:end]
            if end >= cfg.min_tokens and key in self.entries:
                read, matched = end, f"breakpoint cache <- {self.entries[key][1]}"
                self.entries[key] = (t, self.entries[key][1])  # reuse refreshes the lifetime
                break

        label = f"request {self._n}" + (f" ({request.session})" if request.session else "")
        written = 0
        for end in sorted(set(explicit) | set(implicit)):
            if end < cfg.min_tokens:
                continue
            key = request.tokens[:end]
            origin = self.entries[key][1] if key in self.entries else label
            self.entries[key] = (t, origin)
            written = max(written, end)
        write = max(0, written - read)
        self._n += 1
        n = len(request)
        notes = () if implicit or explicit else ("no breakpoint: nothing is cached or written",)
        after = next((b.name for b in request.blocks if b.end > read), None)  # the block the read stops before
        return Prediction(read=read, write=write, fresh=n - read, total=n, matched_entry=matched,
                          break_at=read, break_block=block_name_at(request, read) or after, rule=RULE, notes=notes)


def predict(requests: Iterable[Request], config: BreakpointConfig | None = None, **overrides) -> list[Prediction]:
    """Predict GPT-5.6+ usage for each request: ``read`` (cached), ``write`` (cache writes), the rest uncached."""
    config = configure(BreakpointConfig, config, overrides)
    cache = BreakpointCache(config)
    return [cache.step(r) for r in check_order(requests)]
