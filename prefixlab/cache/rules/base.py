"""Shared data types of the cache rules: what goes in (Request, Block) and what comes out (Prediction).

Every rule reads a list of requests in the order the server (or API) received them and returns one
Prediction per request. Token ids are plain ints; a rule never looks at text.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence, TypeVar

BLOCK_KINDS = ("tools", "system", "message")


@dataclass(frozen=True)
class Block:
    """A named token range ``tokens[start:end]`` of a rendered prompt.

    ``kind`` says where the content sits in an API request (tools, system or a message), so API rules
    can put breakpoints on block boundaries and re-order blocks the way the API does.
    ``part`` is optional; "tool_use" / "tool_result" mark blocks whose consecutive runs count as one
    lookback position on the Anthropic API.
    """

    name: str
    kind: str
    start: int
    end: int
    part: str = ""

    def __post_init__(self):
        if self.kind not in BLOCK_KINDS:
            raise ValueError(f"block {self.name!r}: kind must be one of {BLOCK_KINDS}, got {self.kind!r}")
        if not (isinstance(self.start, int) and isinstance(self.end, int)) or not 0 <= self.start <= self.end:
            raise ValueError(f"block {self.name!r}: need integers 0 <= start <= end, got {self.start}..{self.end}")

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Request:
    """One request as the server saw it.

    tokens     the full rendered prompt (token ids)
    generated  the completion's token ids, every sampled token including the last one (often the
               end-of-turn token); empty if unknown. Rules that keep the output in the cache use it:
               llama.cpp's slot keeps ``tokens + generated[:-1]`` (the last sampled token is never
               decoded), mlx_lm stores the key ``tokens + generated``.
    t          seconds since the first request (used for TTLs); must not go backwards
    session    which agent session sent it (caches are shared across sessions; kept for display)
    blocks     named token ranges, in token order, not overlapping
    started, done
               when the server launched the request on a slot and when it released the slot, in
               seconds on the server's own clock (concurrent agents: a later request launched before
               ``done`` finds that slot busy); None: launched after every earlier request was
               released and released before the next one (one request at a time). Only the llama.cpp
               rule reads them.
    cache_prompt, cache_reuse
               the request's own ``cache_prompt`` / ``n_cache_reuse`` fields, when it sent them (None:
               the server's setting applies). Only the local-server rules read them.
    """

    tokens: tuple[int, ...]
    generated: tuple[int, ...] = ()
    t: float = 0.0
    session: str = ""
    blocks: tuple[Block, ...] = ()
    cache_prompt: bool | None = None
    cache_reuse: int | None = None
    started: float | None = None
    done: float | None = None

    def __post_init__(self):
        # accept lists from callers, store tuples so requests stay hashable and immutable
        object.__setattr__(self, "tokens", _token_tuple(self.tokens, "tokens"))
        object.__setattr__(self, "generated", _token_tuple(self.generated, "generated"))
        object.__setattr__(self, "blocks", tuple(self.blocks))
        if not self.tokens:
            raise ValueError("request has no prompt tokens")
        if not isinstance(self.t, (int, float)) or isinstance(self.t, bool) or not math.isfinite(self.t):
            raise ValueError(f"request time t must be a finite number of seconds, got {self.t!r}")
        if self.t < 0:
            raise ValueError(f"request time t must be >= 0 (seconds since the first request), got {self.t}")
        for name in ("started", "done"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                      or not math.isfinite(value) or value < 0):
                raise ValueError(f"request {name} must be a finite number of seconds >= 0 or None, got {value!r}")
        if (self.started is None) != (self.done is None):
            raise ValueError("request started and done go together: give both (server times) or neither")
        if self.done is not None and self.done < self.started:
            raise ValueError(f"request done ({self.done}) is before it started ({self.started})")
        previous_end = 0
        for block in self.blocks:
            if not isinstance(block, Block):
                raise ValueError(f"blocks must be Block objects, got {block!r}")
            if block.end > len(self.tokens):
                raise ValueError(f"block {block.name!r} ends at {block.end}, past the prompt ({len(self.tokens)} tokens)")
            if block.start < previous_end:
                raise ValueError(f"block {block.name!r} starts at {block.start}, before the previous block ends ({previous_end})")
            previous_end = block.end
        if self.cache_prompt is not None and not isinstance(self.cache_prompt, bool):
            raise ValueError(f"cache_prompt must be true, false or None, got {self.cache_prompt!r}")
        if self.cache_reuse is not None and (isinstance(self.cache_reuse, bool) or not isinstance(self.cache_reuse, int)
                                             or self.cache_reuse < 0):
            raise ValueError(f"cache_reuse must be a whole number >= 0 or None, got {self.cache_reuse!r}")
        names = [b.name for b in self.blocks]
        if len(set(names)) != len(names):
            raise ValueError(f"block names must be unique within a request: {names}")

    def __len__(self) -> int:
        return len(self.tokens)

    def block_at(self, index: int) -> Block | None:
        """The block that contains token ``index`` (None between blocks or past the end)."""
        for block in self.blocks:
            if block.start <= index < block.end:
                return block
        return None


@dataclass(frozen=True)
class Prediction:
    """What one request costs in cache terms. The same meaning for every rule:

    total    prompt tokens of the request
    read     tokens served from a cache (the server's ``cached_tokens``; Anthropic ``cache_read_input_tokens``)
    fresh    tokens computed by this request; always ``read + fresh == total``
    write    the part of ``fresh`` that is stored for later requests:
             local servers keep what they compute (llama.cpp, mlx_lm: write == fresh; vLLM: only the
             tokens of full blocks); Anthropic: ``cache_creation_input_tokens``; OpenAI: 0 (no write fee)
    uncached ``fresh - write`` (Anthropic ``input_tokens``: the tokens after the last breakpoint)
    write_5m, write_1h   Anthropic's split of ``write`` by TTL (both 0 for other rules)
    matched_entry        which cache entry supplied ``read`` (e.g. "slot 0", "host cache <- request 3")
    break_at             first prompt token no cache entry could supply: the divergence point with the
                         matched entry (local servers) or the end of the deepest hit (API rules);
                         ``== total`` when the entry covers the whole prompt (then the n-1 cap applies)
    break_block          name of the block that contains ``break_at`` (None if no block does)
    refused              the server's error when it refused the request (a local server whose slot
                         context is too small for the prompt); then nothing was read or computed:
                         ``read == write == fresh == 0`` while ``total`` is still the prompt's length
    """

    read: int
    write: int
    fresh: int
    total: int
    matched_entry: str | None = None
    break_at: int | None = None
    break_block: str | None = None
    write_5m: int = 0
    write_1h: int = 0
    rule: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    refused: str | None = None

    def __post_init__(self):
        if min(self.read, self.write, self.fresh, self.total, self.write_5m, self.write_1h) < 0:
            raise ValueError(f"negative token count in {self}")
        if self.refused is not None:
            if self.read or self.write or self.fresh:
                raise ValueError(f"a refused request reads and computes nothing: {self}")
            return
        if self.read + self.fresh != self.total:
            raise ValueError(f"read + fresh must equal total: {self.read} + {self.fresh} != {self.total}")
        if self.write > self.fresh:
            raise ValueError(f"write ({self.write}) cannot exceed fresh ({self.fresh})")
        if (self.write_5m or self.write_1h) and self.write_5m + self.write_1h != self.write:
            raise ValueError(f"write_5m + write_1h must equal write: {self.write_5m} + {self.write_1h} != {self.write}")

    @property
    def uncached(self) -> int:
        return self.fresh - self.write


class Clock:
    """The time of the last request a rule's state has seen: requests must not go backwards."""

    def __init__(self):
        self.last: float | None = None

    def advance(self, t: float) -> None:
        """Move to time t, or raise (leaving the state as it was) if t is before the last request."""
        if self.last is not None and t < self.last:
            raise ValueError(f"request t={t} is before the previous request (t={self.last})")
        self.last = t


class Settings:
    """Base of every rule's frozen config dataclass."""

    def replace(self, **changes):
        """These settings with some fields changed (checked again like new ones)."""
        return dataclasses.replace(self, **changes)


S = TypeVar("S", bound=Settings)


def configure(config_class: type[S], config: S | None, overrides: dict) -> S:
    """The settings a rule runs with: ``config`` (default: the defaults) with ``overrides`` on top.

    Every rule's ``predict(requests, config=None, **overrides)`` goes through here, so keywords
    mean the same everywhere: ``predict(reqs, cfg, field=value)`` is ``cfg`` with that field changed.
    """
    if config is None:
        return config_class(**overrides)
    if not isinstance(config, config_class):
        raise TypeError(f"config must be a {config_class.__name__}, got {type(config).__name__}")
    return config.replace(**overrides) if overrides else config


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix (llama.cpp ``server_tokens::get_common_prefix`` for text)."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def check_order(requests: Iterable[Request]) -> list[Request]:
    """Return the requests as a list after checking types and that times never go backwards."""
    checked: list[Request] = []
    for i, request in enumerate(requests):
        if not isinstance(request, Request):
            raise ValueError(f"request #{i} is {type(request).__name__}, expected prefixlab.cache.rules.Request")
        if checked and request.t < checked[-1].t:
            raise ValueError(
                f"request #{i} has t={request.t} < t={checked[-1].t} of request #{i - 1}: "
                "requests must be in server order with non-decreasing times")
        checked.append(request)
    return checked


def block_name_at(request: Request, index: int | None) -> str | None:
    if index is None:
        return None
    block = request.block_at(index)
    return block.name if block else None


def _token_tuple(values, what: str) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{what} must be a sequence of token ids, got a string")
    out = tuple(values)
    for v in out:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{what} must hold non-negative int token ids, found {v!r}")
    return out
