"""Counterfactuals: "what if the agent had refreshed its system prompt right after a write at round k?"

    from prefixlab.cache import counterfactual as cf
    cf.k_values(rec)                       # range(1, 10): every k the history allows
    requests = cf.build(rec, 3)            # the requests that history would have sent
    rows = cf.predict(rec, 3)              # calculator Rows; measured too when k was recorded
    results = cf.compare_all(rec)          # every recorded k: built == recorded? predicted == measured?

The history is a recorded session of kind ``main`` (default: the frozen group's session on the day
the recorded counterfactuals belong to -- the one whose prompt never changed). Rounds <= k are sent
as recorded; rounds > k carry the system text *with the memory note*. The note comes from the
recording itself: the history's ``remember`` tool calls, applied to the memory the history started
with by miniagent's own MemoryStore, and put into the prompt by miniagent's SystemPrompt
(``note_system``). The same group's next-day session starts with that text when nothing else was
written; ``next_day_system`` gives it as a cross-check.

This mirrors how the memory-timing experiment's recorder recorded the measured counterfactuals
(each k on a restarted server, i.e. its own epoch starting empty), so for every recorded k the built requests
must be token-identical to the recorded ones, and the prediction must equal the measurement.
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from miniagent.memory import MemoryStore, NoteRefused
from miniagent.prompt import AGENTS_HEADER, EMPTY_MEMORY, SystemPrompt

from prefixlab.recording.format import Call, Recording

from .attribution import split_system_prompt
from .calculator import Row, make_row, epochs, make_requests, prepare, predict_indices, rule_config
from .rules import predict as rules_predict


class CounterfactualError(ValueError):
    """A counterfactual that cannot be built from this recording; the message says why."""


@dataclass(frozen=True)
class CounterfactualRequest:
    round: int
    messages: list
    tools: list | None
    refreshed: bool  # True when the system text carries the note (round > k)


def history_session(recording: Recording, history: str | None = None) -> str:
    """The main session counterfactuals are built from (checked, or chosen as described above)."""
    sessions = recording.manifest["sessions"]
    if history is not None:
        info = recording.session_info(history) if any(s["id"] == history for s in sessions) else None
        if info is None:
            raise CounterfactualError(f"no session {history!r}; sessions: {', '.join(s['id'] for s in sessions)}")
        if info["kind"] != "main":
            raise CounterfactualError(f"session {history!r} is a {info['kind']} session; build from a main one")
        return history
    days = {s["day"] for s in sessions if s["kind"] == "counterfactual"} or {1}
    for s in sessions:
        if s["kind"] == "main" and s["group"] == "frozen" and s["day"] in days:
            return s["id"]
    mains = [s["id"] for s in sessions if s["kind"] == "main"]
    if not mains:
        raise CounterfactualError(f"{recording.path}: no session of kind main to build a counterfactual from")
    return mains[0]


def history_calls(recording: Recording, history: str) -> list[dict]:
    """The model_call entries on the history's path, in order."""
    return [e for e in recording.session_path(history) if e["type"] == "model_call"]


def k_values(recording: Recording, history: str | None = None) -> range:
    """k = 1 .. rounds-1: a refresh after the last round would change no request."""
    return range(1, len(history_calls(recording, history_session(recording, history))))


def remembered_notes(recording: Recording, history: str) -> list[str]:
    """Arguments of the history's ``remember`` tool calls, in order."""
    notes = []
    for entry in recording.session_path(history):
        message = entry.get("message") if entry["type"] == "message" else None
        for call in (message or {}).get("tool_calls") or []:
            if call["function"]["name"] == "remember":
                args = call["function"]["arguments"]
                args = json.loads(args) if isinstance(args, str) else args
                notes.append(args.get("note", ""))
    return notes


def note_system(recording: Recording, history: str | None = None) -> str:
    """The system text a refresh after the write would have produced (see module docstring)."""
    history = history_session(recording, history)
    first_system = history_calls(recording, history)[0]["request"]["messages"][0]
    blocks = dict(split_system_prompt(first_system["content"]) or [])
    if not blocks or first_system["role"] != "system":
        raise CounterfactualError(f"{history}: its first system message was not built by miniagent's SystemPrompt")
    if "memory_body" not in blocks:
        raise CounterfactualError(f"{history}: its system prompt carries no memory (mode after-tools keeps it in "
                                  "the first user message), so there is no memory block to refresh")
    base = blocks["base"]
    agents = blocks["agents_md"][len(f"\n\n{AGENTS_HEADER}\n\n"):] if "agents_md" in blocks else ""
    body = blocks["memory_body"]
    notes = remembered_notes(recording, history)
    if not notes:
        raise CounterfactualError(f"{history}: no remember call, so there is no note to refresh with")
    with tempfile.TemporaryDirectory(prefix="prefixlab-cf-") as tmp:
        # miniagent's own store decides what the note does to the memory (strip, duplicates, limit)
        store = MemoryStore(Path(tmp) / "MEMORY.md")
        if body != EMPTY_MEMORY:
            store.path.write_text(body + "\n", encoding="utf-8")
        for note in notes:
            try:
                store.add(note)
            except NoteRefused:
                pass  # the tool told the model it was not saved; the memory is unchanged
        memory = store.text()
    return SystemPrompt(base, agents, memory).text


def next_day_system(recording: Recording, history: str | None = None) -> str | None:
    """First system text of the same group's next-day main session (None if there is none)."""
    history = history_session(recording, history)
    info = recording.session_info(history)
    for s in recording.manifest["sessions"]:
        if s["kind"] == "main" and s["group"] == info["group"] and s["day"] == info["day"] + 1:
            return history_calls(recording, s["id"])[0]["request"]["messages"][0]["content"]
    return None


def _check_k(recording: Recording, k: int, history: str) -> None:
    ks = k_values(recording, history)
    if not isinstance(k, int) or isinstance(k, bool) or k not in ks:
        raise CounterfactualError(f"k={k!r} is out of range: {history} has {len(ks) + 1} rounds, "
                                  f"so k must be an integer in {ks.start}..{ks.stop - 1}")


def build(recording: Recording, k: int, history: str | None = None, system: str | None = None
          ) -> list[CounterfactualRequest]:
    """The requests "refresh right after round k" would have sent (rounds > k get ``system``)."""
    recording = prepare(recording).recording
    history = history_session(recording, history)
    _check_k(recording, k, history)
    system = system if system is not None else note_system(recording, history)
    out = []
    for entry in history_calls(recording, history):
        messages = json.loads(json.dumps(entry["request"]["messages"]))
        refreshed = entry["round"] > k
        if refreshed:
            messages[0] = {"role": "system", "content": system}
        out.append(CounterfactualRequest(entry["round"], messages, entry["request"].get("tools"), refreshed))
    return out


def recorded_session(recording: Recording, k: int) -> str | None:
    for s in recording.manifest["sessions"]:
        if s["kind"] == "counterfactual" and s.get("k") == k:
            return s["id"]
    return None


def predict(recording, k: int, rule: str = "llamacpp", history: str | None = None, **rule_config_overrides) -> list[Row]:
    """Rows for the counterfactual at k, predicted from the *built* requests.

    When k was recorded, its epoch is replayed with the built requests in place of the recorded
    ones, and each Row carries the measured cached_tokens. Otherwise the built requests run alone
    on an empty cache (what a restarted server sees); ``measured`` is then None.
    """
    replay = prepare(recording)
    rec = replay.recording
    history = history_session(rec, history)
    built = build(rec, k, history)
    atts = [replay.attribute(r.messages, r.tools) for r in built]
    config = rule_config(rec, rule, **rule_config_overrides)
    # the recorded counterfactuals were built from the default history; others have no measurement
    sid = recorded_session(rec, k) if history == history_session(rec) else None
    if sid is not None:
        positions = [i for i, c in enumerate(rec.calls) if c.session == sid]
        if len(positions) != len(built):
            raise CounterfactualError(f"{sid} has {len(positions)} requests, the history {history} {len(built)}")
        epoch = rec.calls[positions[0]].epoch
        indices = epochs(rec)[epoch]
        subst = dict(zip(positions, atts))
        preds = dict(zip(indices, predict_indices(replay, indices, rule, config, subst)))
        return [make_row(rec.calls[i], subst[i], preds[i], rule) for i in positions]
    # not recorded: alone on a fresh state, with the history's times and replies
    hist = [i for i, c in enumerate(rec.calls) if c.session == history]
    requests = make_requests(replay, hist, rule, dict(zip(hist, atts)))
    t0 = requests[0].t
    requests = [type(r)(r.tokens, r.generated, r.t - t0, f"counterfactual-k{k} (built)", r.blocks) for r in requests]
    rows = []
    for i, att, p in zip(hist, atts, rules_predict(rule, requests, **config)):
        c = rec.calls[i]
        call = Call(-1, f"counterfactual-k{k} (built)", c.round, -1, c.t - rec.calls[hist[0]].t, "",
                    {}, {"usage": {"prompt_tokens": len(att)}})
        rows.append(make_row(call, att, p, rule))
    return rows


@dataclass(frozen=True)
class KResult:
    k: int
    session: str               # the recorded counterfactual session
    rows: tuple[Row, ...]      # predicted (read) next to measured, per round
    identical_requests: bool   # built requests == recorded ones (same JSON messages/tools)
    identical_tokens: bool     # ... and the same token ids

    @property
    def agree(self) -> bool:
        return all(r.ok for r in self.rows)


def compare_all(recording, rule: str = "llamacpp", history: str | None = None, **rule_config_overrides) -> list[KResult]:
    """For every recorded counterfactual: is the built request sequence the recorded one, and does the
    prediction from the built requests equal the measured cached_tokens on every round?"""
    replay = prepare(recording)
    rec = replay.recording
    history = history_session(rec, history)
    out = []
    for s in rec.manifest["sessions"]:
        if s["kind"] != "counterfactual":
            continue
        k = s.get("k")
        built = build(rec, k, history)
        positions = [i for i, c in enumerate(rec.calls) if c.session == s["id"]]
        recorded = [rec.calls[i] for i in positions]
        same_json = len(built) == len(recorded) and all(
            b.messages == c.request["messages"] and b.tools == c.request.get("tools") for b, c in zip(built, recorded))
        same_ids = len(built) == len(recorded) and all(
            replay.attribute(b.messages, b.tools).ids == replay.attributions[i].ids for b, i in zip(built, positions))
        rows = predict(replay, k, rule, history, **rule_config_overrides)
        out.append(KResult(k, s["id"], tuple(rows), same_json, same_ids))
    return sorted(out, key=lambda r: r.k)
