"""Side lesson A6·R's per-request table: each memory strategy of T14, request by request.

    from prefixlab.presenting import strategies
    rows = strategies.per_request()                 # the shipped T14 recording
    strategies.totals(rows)                         # per strategy: sums over the session

One ``Request`` per recorded request: which strategy and user request (turn) it belongs to, the
tokens the notes take in it (block attribution's ``memory`` part: header and notes, in the
system prompt or in the user message), its prompt tokens, the server's measured
``cached_tokens`` (the llama.cpp rule predicts every one; test_shipped_recordings.py), and what
the calculator's Anthropic and OpenAI rules would read from their caches for the same requests.
"""
from __future__ import annotations

from dataclasses import dataclass

from prefixlab.cache import calculator, composition
from prefixlab.paths import RECORDINGS

T14 = RECORDINGS / "t14-smollm2-llamacpp"
ANTHROPIC_MODEL = "claude-opus-5"  # the model lesson A6·2 projects onto (minimum cacheable prompt: 512)


@dataclass(frozen=True)
class Request:
    seq: int
    strategy: str        # session id = memory mode: frozen, select, retrieve
    turn: int            # which user request (1-based)
    round: int           # call within that request's tool loop (1-based)
    memory: int          # tokens of the notes (and their header) in this request
    prompt: int          # prompt_tokens
    cached: int          # measured cached_tokens (llama-server)
    break_block: str | None  # where the llama.cpp prefix broke
    anthropic: int       # Anthropic rule: tokens read from cache
    openai: int          # OpenAI rule: tokens read from cache

    @property
    def recomputed(self) -> int:
        return self.prompt - self.cached


def per_request(recording=T14, anthropic: dict | None = None, openai: dict | None = None) -> list[Request]:
    """The rows of ``recording`` in recorded order. ``anthropic`` / ``openai``: rule options
    (default: automatic caching on ``ANTHROPIC_MODEL``; OpenAI's defaults)."""
    replay = calculator.prepare(recording)
    rec = replay.recording
    local = {r.seq: r for r in calculator.analyze(replay)}
    cloud_a = {r.seq: r for r in calculator.analyze(replay, "anthropic", **(anthropic or {"model": ANTHROPIC_MODEL}))}
    cloud_o = {r.seq: r for r in calculator.analyze(replay, "openai", **(openai or {}))}
    out, turns = [], {}
    for call in rec.calls:
        if call.round == 1:
            turns[call.session] = turns.get(call.session, 0) + 1
        parts = composition.tokens_by_part(replay.attributions[call.seq], call.request["messages"])
        out.append(Request(call.seq, call.session, turns[call.session], call.round, parts["memory"],
                           call.prompt_tokens, call.cached_tokens, local[call.seq].break_block,
                           cloud_a[call.seq].read, cloud_o[call.seq].read))
    return out


@dataclass(frozen=True)
class Totals:
    strategy: str
    requests: int
    memory: int        # notes' tokens summed over the requests (what the requests carried)
    prompt: int
    cached: int
    recomputed: int    # prompt - cached, summed: what the local server computed
    anthropic: int
    openai: int


def totals(rows: list[Request]) -> list[Totals]:
    """Sums per strategy, in recorded order."""
    out = {}
    for r in rows:
        t = out.setdefault(r.strategy, [0] * 7)
        for i, v in enumerate((1, r.memory, r.prompt, r.cached, r.recomputed, r.anthropic, r.openai)):
            t[i] += v
    return [Totals(s, *v) for s, v in out.items()]
