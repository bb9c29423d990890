"""Anthropic Messages API prompt caching, as the documentation describes it, over token-id blocks.

Source: platform.claude.com/docs/en/build-with-claude/prompt-caching, stored copy idx:69611539940
("A-new", newest models Opus 5 / Fable 5.1; read 2026-12-02). The rules, in our words:

- the prefix is tools -> system -> messages, "up to and including the block designated with
  cache_control"; blocks are re-ordered here into that order before anything else;
- a breakpoint writes exactly one entry: a hash of the whole prefix ending at its block
  ("Three core principles", 1);
- reads: at each breakpoint check its own hash, then walk back one block at a time looking for
  entries *earlier requests wrote*, at most 20 positions counting the breakpoint itself; a run of
  consecutive tool_use (or tool_result) blocks counts as one position (principles 2 and 3; the
  turn-3 example: a breakpoint at block 35 checks 35..16 and misses the entry at 15);
- at most 4 breakpoints; automatic caching (top-level cache_control) puts one on the last
  cacheable block and uses one of the 4 slots; same TTL already there = no-op; a different TTL,
  or 4 explicit breakpoints already, = HTTP 400 (section "Edge cases"); empty blocks cannot be cached;
- minimum cacheable length per model, below it nothing is cached and no error is returned
  ("Cache limitations"); we apply it to the cumulative prefix at each breakpoint (our reading);
- TTL 5 min (default) or 1 h, measured from the start of the request that writes or reads the
  entry, refreshed free on each hit; longer TTLs must come before shorter ones;
- usage: total = cache_read + cache_creation + input_tokens; with mixed TTLs A = tokens at the
  deepest hit, B = deepest 1 h breakpoint after A, C = last breakpoint: read = A,
  1 h write = B - A, 5 m write = C - B.

Choices where the docs are silent (ours, stated so they can be changed):
- an entry is alive while ``t < start of its last write/read + TTL``: refreshed at 0, gone at exactly 300 s;
- a request refreshes the entry it hit and the entries at its own breakpoints (a breakpoint inside
  the read prefix re-writes its entry free of charge; the longer TTL is kept);
- template tokens between blocks count with the next block; tokens after the last block (a chat
  template's generation prompt, e.g. ``<|im_start|>assistant\n``) are in no block: they are input
  tokens, never cached (they change place each turn, so hashing them into the last block would
  make every automatic breakpoint miss on the next turn);
- inside a tool_use / tool_result run only the run's last block is a lookback position;
- automatic caching with 4 explicit breakpoints is an error even when one of them is on the last
  block (the docs' literal wording);
- reads see only entries written by *earlier* requests; every earlier request has "begun".

Not modelled: the invalidation table (tool_choice, images, thinking, effort, ...: give the changed
tokens instead), parallel requests (an entry is usable once the first response *begins*),
workspaces, server-tool writes, batch/data-residency modifiers, Bedrock differences.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ..models import anthropic_minimums, guess_provider, normalize_model, resolve
from .base import Block, Clock, Prediction, Request, Settings, check_order, configure

# What the calculator, the lab and the report know about this rule (see prefixlab.cache.rules)
NAME = "anthropic"
LABEL = "Anthropic(Claude)"
RULE = "Anthropic"
PROVIDER = "anthropic"
TAKES = ("model", "breakpoints")
API = True
SERVER = None
TTL_WRITES = True
SOURCE = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching (read 2026-12-02)"

# Minimum cacheable prompt length per model, in dated tables: data/prices/anthropic-minimums.yml says
# where each row comes from ("Cache limitations" of the docs' stored copies, newest first). The
# Feb-2026 copy listed Sonnet 4.6 at 2,048, and users measured about 2,048 then
# (anthropic-sdk-python#1194); pick a table with AnthropicConfig(min_table="2026-02") or set min_tokens.
MIN_TABLES = anthropic_minimums()
MIN_CACHEABLE_TOKENS_DATE = next(iter(MIN_TABLES))  # the newest table
MIN_CACHEABLE_TOKENS = MIN_TABLES[MIN_CACHEABLE_TOKENS_DATE]

TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}
LOOKBACK = 20
MAX_BREAKPOINTS = 4
KIND_ORDER = {"tools": 0, "system": 1, "message": 2}
RUN_PARTS = ("tool_use", "tool_result")


class CacheControlError(ValueError):
    """A request the API would reject with HTTP 400."""


def min_cacheable_tokens(model: str, table: str = MIN_CACHEABLE_TOKENS_DATE) -> int:
    """The model's minimum cacheable prefix in the dated table ``table`` (a key of MIN_TABLES)."""
    if table not in MIN_TABLES:
        raise ValueError(f"unknown minimum-length table {table!r}; known: {', '.join(MIN_TABLES)}")
    mins = MIN_TABLES[table]
    key = normalize_model(model, "anthropic")
    if key not in mins and guess_provider(key) == "anthropic":
        try:
            key = resolve(key, "anthropic")[1]  # a dated id or alias of a model in the price table
        except ValueError:
            pass
    if key not in mins:
        raise ValueError(f"unknown Anthropic model {model!r} in the {table} table; known models: {', '.join(sorted(mins))}")
    return mins[key]


def minimum(model: str) -> tuple[int, str]:
    """The model's minimum cacheable prompt and the dated table it comes from (newest table first)."""
    for table in MIN_TABLES:
        try:
            return min_cacheable_tokens(model, table), table
        except ValueError:
            continue
    raise ValueError(f"no minimum cacheable length known for {model!r}")


def model_settings(model: str) -> dict:
    """``predict`` keywords for a model: the model, and the older table when only that one lists it."""
    _, table = minimum(model)
    return {"model": model} if table == MIN_CACHEABLE_TOKENS_DATE else {"model": model, "min_table": table}


@dataclass(frozen=True)
class Breakpoint:
    """An explicit ``cache_control`` on the block called ``block``."""

    block: str
    ttl: str = "5m"

    def __post_init__(self):
        if self.ttl not in TTL_SECONDS:
            raise ValueError(f"breakpoint {self.block!r}: ttl must be one of {list(TTL_SECONDS)}, got {self.ttl!r}")


@dataclass(frozen=True)
class AnthropicConfig(Settings):
    model: str = "claude-haiku-4-5"
    breakpoints: tuple[Breakpoint, ...] = ()  # explicit breakpoints, by block name ("base", "agents_md", ...)
    automatic: str | None = "5m"              # top-level cache_control TTL; None = off
    min_tokens: int | None = None             # override the per-model table
    min_table: str = MIN_CACHEABLE_TOKENS_DATE  # which dated table gives the minimum
    _min_from_table: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_min_from_table", self.min_tokens is None)
        bps = tuple(b if isinstance(b, Breakpoint) else Breakpoint(*((b,) if isinstance(b, str) else b))
                    for b in self.breakpoints)
        object.__setattr__(self, "breakpoints", bps)
        if self.automatic is not None and self.automatic not in TTL_SECONDS:
            raise ValueError(f"automatic must be None or one of {list(TTL_SECONDS)}, got {self.automatic!r}")
        if self.min_tokens is None:
            object.__setattr__(self, "min_tokens", min_cacheable_tokens(self.model, self.min_table))
        elif self.min_tokens < 0:
            raise ValueError(f"min_tokens must be >= 0, got {self.min_tokens}")
        if len(bps) > MAX_BREAKPOINTS:
            raise CacheControlError(f"{len(bps)} explicit breakpoints; the API allows at most {MAX_BREAKPOINTS}")
        if self.automatic is not None and len(bps) >= MAX_BREAKPOINTS:
            raise CacheControlError("automatic caching needs a breakpoint slot, but 4 explicit breakpoints exist")

    def replace(self, **changes) -> "AnthropicConfig":
        # a minimum that came from the table follows a new model or table
        if self._min_from_table and "min_tokens" not in changes:
            changes["min_tokens"] = None
        return super().replace(**changes)


@dataclass
class _Entry:
    expires: float
    ttl: str
    origin: str
    n_tokens: int


@dataclass(frozen=True)
class _ApiBlock:
    block: Block
    start: int   # token range in the rendered prompt, including template tokens before the block
    end: int
    key: bytes   # hash of the API-order prefix ending here
    cum: int     # tokens of the API-order prefix ending here
    position: int  # lookback position (tool_use / tool_result runs share one)


def api_blocks(request: Request) -> list[_ApiBlock]:
    """The request's blocks in API order (tools, system, messages), with cumulative hashes.

    Tokens between blocks (template glue) count with the next block; tokens after the last block
    belong to none (uncached input).
    A request without blocks is one message block called "prompt".
    """
    blocks = list(request.blocks) or [Block("prompt", "message", 0, len(request))]
    spans = []
    prev = 0
    for b in blocks:
        spans.append((b, prev, b.end))
        prev = b.end
    spans.sort(key=lambda s: KIND_ORDER[s[0].kind])  # stable: keeps the order within a level
    out, parent, cum, position, last_part = [], b"", 0, -1, None
    for b, start, end in spans:
        chunk = request.tokens[start:end]
        parent = hashlib.sha256(parent + b.kind.encode() + b"|" + ",".join(map(str, chunk)).encode()).digest()
        cum += end - start
        if not (b.part in RUN_PARTS and b.part == last_part):
            position += 1
        last_part = b.part or None
        out.append(_ApiBlock(b, start, end, parent, cum, position))
    return out


class AnthropicCache:
    def __init__(self, config: AnthropicConfig | None = None):
        self.config = config or AnthropicConfig()
        self.entries: dict[bytes, _Entry] = {}
        self._n = 0
        self._clock = Clock()

    def _breakpoints(self, blocks: list[_ApiBlock]) -> list[tuple[int, str]]:
        """(index into blocks, ttl) for each breakpoint of this request, in prefix order."""
        cfg = self.config
        index = {ab.block.name: i for i, ab in enumerate(blocks)}
        chosen: dict[int, str] = {}
        for bp in cfg.breakpoints:
            if bp.block not in index:
                raise ValueError(f"breakpoint on unknown block {bp.block!r}; this request has: {', '.join(index)}")
            i = index[bp.block]
            if blocks[i].end == blocks[i].start:
                raise CacheControlError(f"breakpoint on empty block {bp.block!r}: empty blocks cannot be cached")
            if chosen.get(i, bp.ttl) != bp.ttl:
                raise CacheControlError(f"two breakpoints with different TTLs on block {bp.block!r}")
            chosen[i] = bp.ttl
        if cfg.automatic is not None:
            last = next((i for i in range(len(blocks) - 1, -1, -1) if blocks[i].end > blocks[i].start), None)
            if len(cfg.breakpoints) >= MAX_BREAKPOINTS:
                raise CacheControlError("automatic caching needs a breakpoint slot, but 4 explicit breakpoints exist")
            if last is not None:
                if last in chosen and chosen[last] != cfg.automatic:
                    raise CacheControlError(
                        f"last block {blocks[last].block.name!r} has ttl {chosen[last]}, automatic caching asks for {cfg.automatic}")
                chosen[last] = cfg.automatic
        out = sorted(chosen.items())
        seen_5m = False
        for i, ttl in out:
            if ttl == "5m":
                seen_5m = True
            elif seen_5m:
                raise CacheControlError(f"1h breakpoint on {blocks[i].block.name!r} comes after a 5m one; longer TTLs must come first")
        return out

    def _alive(self, key: bytes, t: float) -> _Entry | None:
        entry = self.entries.get(key)
        return entry if entry is not None and t < entry.expires else None

    def step(self, request: Request) -> Prediction:
        self._clock.advance(request.t)
        t = request.t
        blocks = api_blocks(request)
        bps = self._breakpoints(blocks)
        self.entries = {k: e for k, e in self.entries.items() if t < e.expires}
        notes = []
        if request.blocks and [ab.block.name for ab in blocks] != [b.name for b in request.blocks]:
            notes.append("blocks re-ordered to the API order tools -> system -> messages")

        # reads: each breakpoint looks back over at most LOOKBACK positions for an earlier write
        hit_i = None
        for i, _ttl in bps:
            first_position = blocks[i].position - LOOKBACK + 1
            for j in range(i, -1, -1):
                if blocks[j].position < first_position:
                    break
                # inside a run only the run's last block is a position (and the breakpoint itself)
                if j != i and j + 1 < len(blocks) and blocks[j + 1].position == blocks[j].position:
                    continue
                if self._alive(blocks[j].key, t):
                    if hit_i is None or j > hit_i:
                        hit_i = j
                    break
        A = blocks[hit_i].cum if hit_i is not None else 0

        # writes: breakpoints whose prefix reaches the model's minimum
        minimum = self.config.min_tokens
        effective = [(i, ttl) for i, ttl in bps if blocks[i].cum >= minimum]
        for i, ttl in bps:
            if blocks[i].cum < minimum:
                notes.append(f"breakpoint on {blocks[i].block.name!r}: prefix {blocks[i].cum} tokens < minimum {minimum}, not cached")
        C = max([blocks[i].cum for i, _ in effective], default=0)
        B = max([blocks[i].cum for i, ttl in effective if ttl == "1h" and blocks[i].cum > A], default=0)
        write_1h = B - A if B else 0
        write_5m = max(0, C - max(A, B))

        matched = None
        label = f"request {self._n}" + (f" ({request.session})" if request.session else "")
        if hit_i is not None:
            entry = self.entries[blocks[hit_i].key]
            matched = f"{entry.origin} @ {blocks[hit_i].block.name} ({entry.ttl})"
            entry.expires = max(entry.expires, t + TTL_SECONDS[entry.ttl])  # refreshed on a hit
        for i, ttl in effective:
            old = self._alive(blocks[i].key, t)
            if old is not None:
                old.expires = max(old.expires, t + TTL_SECONDS[ttl])
                if TTL_SECONDS[ttl] > TTL_SECONDS[old.ttl]:
                    old.ttl = ttl
            else:
                self.entries[blocks[i].key] = _Entry(t + TTL_SECONDS[ttl], ttl, label, blocks[i].cum)
        self._n += 1

        if hit_i is None:
            nxt = blocks[0]
        elif hit_i + 1 < len(blocks):
            nxt = blocks[hit_i + 1]
        else:
            nxt = None
        n = len(request)
        return Prediction(
            read=A, write=write_1h + write_5m, fresh=n - A, total=n,
            write_5m=write_5m, write_1h=write_1h, matched_entry=matched,
            break_at=nxt.start if nxt else n, break_block=nxt.block.name if nxt else None,
            rule=RULE, notes=tuple(notes))


def predict(requests: Iterable[Request], config: AnthropicConfig | None = None, **overrides) -> list[Prediction]:
    """Predict Anthropic usage for each request. Examples::

        predict(reqs)                                    # automatic caching, Haiku 4.5, 5 min
        predict(reqs, model="claude-sonnet-4-6", automatic=None, breakpoints=["memory_body"])
        predict(reqs, breakpoints=[Breakpoint("agents_md", "1h")])
    """
    config = configure(AnthropicConfig, config, overrides)
    cache = AnthropicCache(config)
    return [cache.step(r) for r in check_order(requests)]


def explicit(*names: str | tuple[str, str] | Sequence[str], ttl: str = "5m") -> tuple[Breakpoint, ...]:
    """Shorthand: ``explicit("agents_md", ("memory_body", "1h"))``."""
    return tuple(Breakpoint(n, ttl) if isinstance(n, str) else Breakpoint(*n) for n in names)
