"""``python -m prefixlab bill PATH``: the whole bill of a session file or a recording.

A bill adds up the ledger, not the context. Every request the agent sent is in its session file
(a ``model_call`` entry, or a ``compaction`` entry whose summary a model wrote) with the server's
whole response, ``usage`` included; every branch of the session tree counts (a branch left behind
was paid for all the same), and so does every child session, recursively: a ``child`` entry names
the child's own session file (``<parent-stem>.children/<child-id>.jsonl``, next to the parent).
The ``usage`` a ``child`` entry carries is a convenience and a check, never added: adding it *and*
the child's file would count the child twice.

Usage comes in two conventions, and one number means different things in each:

    OpenAI style     prompt_tokens = every input token, cached ones included
                     (prompt_tokens_details.cached_tokens says how many were read from the cache;
                     the Responses API's input_tokens + input_tokens_details.cached_tokens likewise)
    Anthropic style  input_tokens = only the tokens neither read from nor written to the cache;
                     cache_read_input_tokens and cache_creation_input_tokens are separate

``normalize`` turns either into one ``Usage`` (uncached input, cache read, cache write, output),
and a bill prints its totals both ways.

Pricing (``--model``) converts token counts at a dated price list (``data/prices/``). Token counts
only mean something together with the cache rule that produced them, so ``--rule`` says which:

    recorded   the counts the server reported (a local server's cache); a conversion only
    anthropic / openai / openai-breakpoints / deepseek / kimi / qwen
               replay a recording's requests under that provider's cache rule (the calculator,
               ``prefixlab.cache.calculator.analyze``) and price its reads and writes; needs a
               recording, whose manifest holds the chat template and the tokenizer

Default: the model's own rule for a recording, ``recorded`` for a session file.

Local cost: llama-server's ``timings`` (``prompt_ms``, ``predicted_ms``) add up to the server
seconds the work took.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import miniagent.children  # noqa: F401 (what a child entry means: session.KINDS; session_cli brings the rest)
from miniagent.session import Session, SessionFileError
from miniagent.session_cli import ContinuedSession  # a file a crash cut off: its complete entries
from prefixlab.cache import pricing, rules
from prefixlab.cache.pricing import CostBreakdown, Term
from prefixlab.recording.format import RecordingError, is_request, load


class BillError(ValueError):
    """Input the bill cannot add up; the message names the file, the line and the field."""


# -- one usage, two conventions ----------------------------------------------------------------------

@dataclass(frozen=True)
class Usage:
    """What requests used, in one convention (pi's ``Usage``: input excludes the cache)."""

    input: int = 0         # input tokens neither read from nor written to the cache
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    calls: int = 0         # requests the server answered
    unreported: int = 0    # of those, how many reported no cache count (their prompt is counted as input)

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(*(getattr(self, f) + getattr(other, f) for f in
                       ("input", "cache_read", "cache_write", "output", "calls", "unreported")))

    @property
    def prompt(self) -> int:
        """Every input token (OpenAI's prompt_tokens)."""
        return self.input + self.cache_read + self.cache_write

    def openai(self) -> dict:
        """This usage booked OpenAI style: prompt_tokens includes the cached tokens."""
        return {"prompt_tokens": self.prompt, "completion_tokens": self.output,
                "prompt_tokens_details": {"cached_tokens": self.cache_read}}

    def anthropic(self) -> dict:
        """This usage booked Anthropic style: input_tokens excludes cache reads and writes."""
        return {"input_tokens": self.input, "cache_read_input_tokens": self.cache_read,
                "cache_creation_input_tokens": self.cache_write, "output_tokens": self.output}

    def naive_input(self) -> int:
        """The classic mistake: OpenAI's prompt_tokens read as Anthropic's input_tokens, and the
        cache reads added on top. Over-counts by exactly ``cache_read + cache_write``."""
        return self.prompt + self.cache_read + self.cache_write


def _count(usage: dict, key: str, where: str, required: bool = True) -> int | None:
    value = usage.get(key)
    if value is None:
        if required:
            raise BillError(f"{where}: field usage.{key} is missing")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BillError(f"{where}: field usage.{key} should be a whole number >= 0, got {value!r}")
    return value


def _details(usage: dict, key: str, where: str) -> int | None:
    details = usage.get(key)
    if details is None:
        return None
    if not isinstance(details, dict):
        raise BillError(f"{where}: field usage.{key} should be an object, got {type(details).__name__}")
    return _count(details, "cached_tokens", f"{where} (usage.{key})", required=False)


def normalize(usage, where: str = "usage") -> Usage:
    """One request's ``usage`` object, in whichever convention it comes, as a Usage.

    OpenAI chat completions: ``prompt_tokens`` (+ ``prompt_tokens_details.cached_tokens``); the same for
    Qwen (百炼), whose explicit cache adds ``prompt_tokens_details.cache_creation_input_tokens`` (inside
    ``prompt_tokens``); DeepSeek: ``prompt_cache_hit_tokens`` + ``prompt_cache_miss_tokens`` = ``prompt_tokens``;
    Kimi: ``cached_tokens`` at the top level of ``usage``;
    OpenAI Responses: ``input_tokens`` + ``input_tokens_details.cached_tokens`` (input includes cached);
    Anthropic: ``input_tokens``, ``cache_read_input_tokens``, ``cache_creation_input_tokens`` (input
    excludes both). A cache count that is not reported is never read as 0 hits silently: the Usage
    counts the request in ``unreported``.
    """
    if not isinstance(usage, dict):
        raise BillError(f"{where}: field usage should be an object, got {type(usage).__name__}")
    if "prompt_tokens" in usage:
        prompt = _count(usage, "prompt_tokens", where)
        output = _count(usage, "completion_tokens", where, required=False) or 0
        cached = _details(usage, "prompt_tokens_details", where)
        hit = _count(usage, "prompt_cache_hit_tokens", where, required=False)
        if hit is not None:  # DeepSeek: hit + miss = prompt_tokens
            miss = _count(usage, "prompt_cache_miss_tokens", where, required=False)
            if miss is not None and hit + miss != prompt:
                raise BillError(f"{where}: prompt_cache_hit_tokens {hit} + prompt_cache_miss_tokens {miss} "
                                f"!= prompt_tokens {prompt}")
            cached = hit
        elif cached is None and "cached_tokens" in usage:  # Kimi (Moonshot): cached_tokens at the top level
            cached = _count(usage, "cached_tokens", where, required=False)
        details = usage.get("prompt_tokens_details") or {}
        write = _count(details, "cache_creation_input_tokens", f"{where} (usage.prompt_tokens_details)",
                       required=False) if isinstance(details, dict) else None
        if write:  # Qwen explicit cache: creation tokens are part of prompt_tokens
            if cached is None or cached + write > prompt:
                raise BillError(f"{where}: cache_creation_input_tokens {write} (+ cached_tokens {cached}) does not "
                                f"fit in the {prompt} prompt tokens")
            return Usage(prompt - cached - write, cached, write, output, 1, 0)
    elif "input_tokens_details" in usage:
        prompt = _count(usage, "input_tokens", where)
        output = _count(usage, "output_tokens", where, required=False) or 0
        cached = _details(usage, "input_tokens_details", where)
    elif "input_tokens" in usage:
        read = _count(usage, "cache_read_input_tokens", where, required=False)
        write = _count(usage, "cache_creation_input_tokens", where, required=False) or 0
        output = _count(usage, "output_tokens", where, required=False) or 0
        return Usage(_count(usage, "input_tokens", where), read or 0, write, output, 1, int(read is None))
    else:
        raise BillError(f"{where}: field usage has neither prompt_tokens (OpenAI style) nor input_tokens "
                        f"(Anthropic style); it has {sorted(usage) or 'no fields'}")
    if cached is None:
        return Usage(prompt, 0, 0, output, 1, 1)
    if cached > prompt:
        raise BillError(f"{where}: cached_tokens {cached} is more than the {prompt} input tokens")
    return Usage(prompt - cached, cached, 0, output, 1, 0)


# -- the ledger of one session file, and of its children -----------------------------------------------

@dataclass(frozen=True)
class Line:
    """One request on the bill."""

    file: Path
    line: int                  # line in the session file (1-based)
    entry_id: str
    kind: str                  # model_call, or compaction (a summary the model wrote)
    round: int | None
    usage: Usage | None        # None: the server refused the request (it computed nothing)
    refused: str | None = None
    prompt_ms: float | None = None
    predicted_ms: float | None = None
    seq: int | None = None     # position in a recording's global order
    session: str | None = None  # the recording's session (a path through the tree) that sent it


@dataclass
class SessionBill:
    """The bill of one session file: its own requests (every branch) and its children's bills."""

    path: Path
    lines: list[Line]
    children: list["ChildBill"] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stops: list[dict] = field(default_factory=list)   # the ``stopped`` entries: a limit ended a task here

    @property
    def own(self) -> Usage:
        return sum((l.usage for l in self.lines if l.usage is not None), Usage())

    @property
    def total(self) -> Usage:
        return sum((c.bill.total for c in self.children), self.own)

    def all_lines(self) -> list[Line]:
        """Every request of this file and, after them, of its children (depth first)."""
        return self.lines + [l for c in self.children for l in c.bill.all_lines()]

    def all_notes(self) -> list[str]:
        return self.notes + [n for c in self.children for n in c.bill.all_notes()]

    def all_stops(self) -> list[str]:
        """Where a limit stopped a task (file:line: reason), children included."""
        return ([f"{self.path.name}:{s['line']}: {s['reason']}" for s in self.stops]
                + [x for c in self.children for x in c.bill.all_stops()])

    def seconds(self) -> tuple[float, float]:
        """Server seconds: prompt processing and generation, children included."""
        lines = self.all_lines()
        return (sum(l.prompt_ms or 0 for l in lines) / 1000, sum(l.predicted_ms or 0 for l in lines) / 1000)


@dataclass
class ChildBill:
    """A child session: the ``child`` entry that names it, and the bill of its file."""

    entry_id: str | None      # None: a child file no child entry names (the parent stopped first?)
    mode: str | None
    status: str | None
    declared: dict | None     # the child entry's usage field: a check, never added
    bill: SessionBill


def _where(path: Path, line: int) -> str:
    return f"{path}:{line}"


def _request_line(entry: dict, path: Path, number: int) -> Line:
    where = _where(path, number)
    response, error = entry.get("response"), entry.get("error")
    if response is None:
        if error is None:
            raise BillError(f"{where}: a {entry['type']} entry with a request has neither response nor error")
        try:
            message = error["body"]["error"]["message"]
        except (KeyError, TypeError):
            message = str(error)
        return Line(path, number, entry["id"], entry["type"], entry.get("round"), None, message)
    if not isinstance(response, dict):
        raise BillError(f"{where}: field response should be an object, got {type(response).__name__}")
    if "usage" not in response:
        raise BillError(f"{where}: field response.usage is missing (the server's usage is what a bill adds up)")
    timings = response.get("timings") if isinstance(response.get("timings"), dict) else {}
    return Line(path, number, entry["id"], entry["type"], entry.get("round"),
                normalize(response["usage"], where), None, timings.get("prompt_ms"), timings.get("predicted_ms"))


def _open(path: Path) -> Session:
    if not path.exists():
        raise BillError(f"{path}: no such session file")
    if not path.is_file():
        raise BillError(f"{path}: not a file (give a session file, .jsonl, or a recording directory)")
    try:
        return ContinuedSession.open(path)
    except SessionFileError as err:
        raise BillError(str(err)) from None
    except UnicodeDecodeError as err:
        raise BillError(f"{path}: not UTF-8 text ({err.reason})") from None
    except OSError as err:
        raise BillError(f"{path}: cannot read it ({err.strerror})") from None


def children_folder(path: Path) -> Path:
    """Where a session file's children live: ``<stem>.children/`` next to it."""
    return path.with_name(path.stem + ".children")


def bill_session(path: Path | str, _seen: tuple[Path, ...] = ()) -> SessionBill:
    """The bill of one session file: every request on every branch, every child recursively."""
    path = Path(path)
    if path.resolve() in _seen:
        chain = " -> ".join(str(p) for p in (*_seen, path.resolve()))
        raise BillError(f"{path}: a child session names one of its own ancestors ({chain})")
    seen = (*_seen, path.resolve())
    session = _open(path)
    if not session.entries:
        raise BillError(f"{path}: empty session file (no entries)")
    bill = SessionBill(path, [])
    if session.dropped:
        bill.notes.append(f"{path}: {session.dropped}; the bill holds the complete entries")
    named: set[Path] = set()
    for number, entry in enumerate(session.entries, start=1):
        if is_request(entry):
            bill.lines.append(_request_line(entry, path, number))
        elif entry["type"] == "stopped":
            bill.stops.append({"line": number, "reason": entry.get("reason"), "tokens": entry.get("tokens")})
        elif entry["type"] == "child":
            child = _child(entry, path, number, seen)
            named.add(child.bill.path.resolve())
            bill.children.append(child)
    folder = children_folder(path)
    if folder.is_dir():  # a child that never reported back was paid for all the same
        for orphan in sorted(folder.glob("*.jsonl")):
            if orphan.resolve() not in named:
                bill.children.append(ChildBill(None, None, None, None, bill_session(orphan, seen)))
                bill.notes.append(f"{orphan}: a child session no child entry in {path.name} names "
                                  "(the parent stopped before the child finished?); billed all the same")
    return bill


def _child(entry: dict, parent: Path, number: int, seen: tuple[Path, ...]) -> ChildBill:
    where = _where(parent, number)
    rel = entry.get("path")
    if not isinstance(rel, str) or not rel:
        raise BillError(f"{where}: field path of the child entry should name the child's session file, got {rel!r}")
    child_path = parent.parent / rel
    if not child_path.is_file():
        raise BillError(f"{where}: child entry {entry['id']!r} names {rel}, but {child_path} does not exist "
                        f"(a child's session file lives in {children_folder(parent).name}/ next to its parent)")
    bill = bill_session(child_path, seen)
    declared = entry.get("usage")
    if isinstance(declared, dict):
        total = bill.total
        have = {"prompt_tokens": total.prompt, "completion_tokens": total.output,
                "cached_tokens": total.cache_read, "calls": total.calls}
        differ = [f"{k} {declared[k]} (file: {have[k]})" for k in have if k in declared and declared[k] != have[k]]
        if differ:
            bill.notes.append(f"{where}: the child entry's usage disagrees with {rel}: {', '.join(differ)}; "
                              "the bill counts the file")
    return ChildBill(entry["id"], entry.get("mode"), entry.get("status"), declared, bill)


# -- a recording: its session files, in the server's global order --------------------------------------

@dataclass
class Bill:
    """The bill of a path: one or more root session files with their children."""

    path: Path
    roots: list[SessionBill]
    recording: object | None = None   # prefixlab.recording.format.Recording, when path is one

    @property
    def total(self) -> Usage:
        return sum((r.total for r in self.roots), Usage())

    def lines(self) -> list[Line]:
        """Every request; in a recording, in the order the server received them."""
        out = [l for r in self.roots for l in r.all_lines()]
        if self.recording is not None:
            out.sort(key=lambda l: (l.seq is None, l.seq if l.seq is not None else 0))
        return out

    def notes(self) -> list[str]:
        return [n for r in self.roots for n in r.all_notes()]

    def seconds(self) -> tuple[float, float]:
        parts = [r.seconds() for r in self.roots]
        return sum(p for p, _ in parts), sum(g for _, g in parts)

    def by_session(self) -> dict[str, Usage]:
        """Per session: a recording's sessions (paths through a tree), else each session file."""
        out: dict[str, Usage] = {}
        for l in self.lines():
            key = l.session or l.file.name
            out[key] = out.get(key, Usage()) + (l.usage or Usage())
        return out


def bill_recording(path: Path | str) -> Bill:
    """The bill of a recording directory, reconciled with its global order of requests."""
    path = Path(path)
    try:
        rec = load(path)
    except RecordingError as err:
        raise BillError(str(err)) from None
    files = {(path / f).resolve(): f for f in rec.files}
    bills = {}
    for resolved in files:
        bills[resolved] = bill_session(path / files[resolved])
    # A file that is some other file's child is billed under its parent, not as a root.
    nested = {c.bill.path.resolve() for b in bills.values() for c in _walk(b)}
    roots = [b for p, b in bills.items() if p not in nested]
    placed = {c.entry_id: c for c in rec.calls}
    seen = set()
    for root in roots:
        for bill in [root, *(c.bill for c in _walk(root))]:
            for i, l in enumerate(bill.lines):
                call = placed.get(l.entry_id)
                if call is None:
                    raise BillError(f"{_where(l.file, l.line)}: request {l.entry_id!r} is not in the manifest's "
                                    "order (the server never received it, or the manifest lost it)")
                if l.entry_id in seen:
                    raise BillError(f"{_where(l.file, l.line)}: request {l.entry_id!r} is billed twice")
                seen.add(l.entry_id)
                bill.lines[i] = Line(l.file, l.line, l.entry_id, l.kind, call.round, l.usage, l.refused,
                                     l.prompt_ms, l.predicted_ms, call.seq, call.session)
    missing = [c for c in rec.calls if c.entry_id not in seen]
    if missing:
        raise BillError(f"{path}: order[{missing[0].seq}] ({missing[0].entry_id!r}) is in no session file the bill read")
    return Bill(path, roots, rec)


def _walk(bill: SessionBill):
    for child in bill.children:
        yield child
        yield from _walk(child.bill)


def bill(path: Path | str) -> Bill:
    """The bill of a session file (``.jsonl``) or a recording directory."""
    path = Path(path)
    if path.is_dir():
        return bill_recording(path)
    if path.name == "manifest.json":  # a recording's manifest names the recording, but is no session file
        raise BillError(f"{path} is a recording's manifest, not a session file: give the recording's directory "
                        f"({path.parent})")
    if not path.exists():
        raise BillError(f"{path}: no such file or directory (give a session file or a recording directory)")
    return Bill(path, [bill_session(path)])


# -- what a tally of the context now sees, next to the ledger -------------------------------------------

PARTS = ("context", "compacted", "summary", "branch", "child")
PART_NOTES = {
    "context": "calls whose answer is still in the context at the leaf",
    "compacted": "calls on the path whose answer a compaction replaced by a summary",
    "summary": "the summary calls of compactions on the path",
    "branch": "calls on other branches of the tree (forks, abandoned paths)",
    "child": "child sessions (their own files), recursively",
}


def context_vs_ledger(path: Path | str, leaf: str | None = None) -> dict[str, Usage]:
    """The ledger of a session file split by what a tally of the context at ``leaf`` would see.

    A tally of the messages in the context now (what an agent's in-memory statistics add up: the
    usage on each assistant message it still holds) sees only ``context``; the ledger also has
    ``compacted``, ``summary``, ``branch`` and ``child`` (see PART_NOTES). The parts add up to
    ``bill_session(path).total``.
    """
    path = Path(path)
    session = _open(path)
    if not session.entries:
        raise BillError(f"{path}: empty session file (no entries)")
    if leaf is not None and leaf not in session.by_id:
        raise BillError(f"{path}: no entry {leaf!r} (the leaf to tally the context at)")
    on_path = {e["id"] for e in session.path_to(leaf)}
    try:
        visible = {i for i, _ in session.visible(leaf)[1]}
    except SessionFileError as err:
        raise BillError(str(err)) from None
    answer = {e["parentId"]: e["id"] for e in session.entries if e["type"] == "message"}
    parts = {p: Usage() for p in PARTS}
    full = bill_session(path)
    for line in full.lines:
        if line.usage is None:
            continue
        if line.entry_id not in on_path:
            part = "branch"
        elif line.kind == "compaction":
            part = "summary"
        else:
            part = "context" if answer.get(line.entry_id) in visible else "compacted"
        parts[part] = parts[part] + line.usage
    parts["child"] = sum((c.bill.total for c in full.children), Usage())
    return parts


# -- prices -------------------------------------------------------------------------------------------

RECORDED = "recorded"


def default_rule(b: Bill, model: str) -> str:
    return pricing.model_price(model).rule if b.recording is not None else RECORDED


def price(b: Bill, model: str, rule: str | None = None, sessions: list[str] | None = None,
          **rule_settings) -> CostBreakdown:
    """What the bill's tokens cost at ``model``'s list prices, counted under ``rule``; ``sessions``: only
    these sessions of a recording (the whole recording is still replayed: the cache is shared)."""
    try:
        listed = pricing.model_price(model)
    except (KeyError, ValueError) as err:
        raise BillError(str(err.args[0] if err.args else err)) from None
    rule = rule or default_rule(b, model)
    if rule == RECORDED:
        return _price_recorded(b, listed, sessions)
    if b.recording is None:
        raise BillError(f"{b.path}: a session file alone cannot be replayed under the {rule!r} rule (the rule "
                        "re-tokenizes each request with the chat template and tokenizer a recording's manifest "
                        "holds); give the recording directory, or --rule recorded")
    if rule != listed.rule:
        raise BillError(f"{listed.name} is cached by the {listed.rule!r} rule, not {rule!r}; "
                        f"use --rule {listed.rule} (or --rule recorded)")
    from prefixlab.cache import calculator

    for key, value in rules.settings(rule, model=listed.model).items():  # what this rule takes of the model
        rule_settings.setdefault(key, value)
    rows = calculator.analyze(b.recording, rule, **rule_settings)
    # A missing output price is said, as in the 'recorded' pricing, not raised from deep inside.
    outputs = {l.seq: (l.usage.output if l.usage and listed.output is not None else 0) for l in b.lines()}
    accepted = [r for r in rows if r.refused is None and (sessions is None or r.session in sessions)]
    cost = pricing.total_cost([r.prediction for r in accepted], model,
                              output_tokens=[outputs[r.seq] for r in accepted])
    if listed.output is None:
        cost = replace(cost, notes=cost.notes + (no_output_price(listed),))
    return cost


def no_output_price(listed: pricing.ModelPrice) -> str:
    return f"No output price recorded for {listed.name}: output tokens are not priced."


def _price_recorded(b: Bill, listed: pricing.ModelPrice, sessions: list[str] | None = None) -> CostBreakdown:
    summed: dict[tuple, int] = {}
    for l in b.lines():
        if l.usage is None or (sessions is not None and l.session not in sessions):
            continue
        p = listed.at(l.usage.prompt)
        write = "write_5m" if "write_5m" in p.multipliers else "write_30m"  # the table's own write term
        terms = [("uncached", l.usage.input, p.base_input, 1.0),
                 (write, l.usage.cache_write, p.base_input, p.multipliers.get(write, 1.0)),
                 ("read", l.usage.cache_read, p.base_input, p.multipliers["read"])]
        if l.usage.output and p.output is not None:
            terms.append(("output", l.usage.output, float(p.output), 1.0))
        for name, tokens, base, mult in terms:
            if tokens or name in ("uncached", "read"):
                summed[name, base, mult] = summed.get((name, base, mult), 0) + tokens
    notes = ["Rule 'recorded': the cache counts the server reported, at this price list. A conversion, not a bill: "
             "the provider's tokenizer and cache would count differently (a recording can be replayed under the "
             "provider's rule: --rule " + listed.rule + ")."]
    if listed.output is None:
        notes.append(no_output_price(listed))
    return CostBreakdown(listed.model, tuple(Term(n, k, b_, m) for (n, b_, m), k in summed.items()),
                         listed.source, tuple(notes))


# -- the command ---------------------------------------------------------------------------------------

def _fmt_usage(u: Usage) -> str:
    return f"{u.calls:>4} {u.prompt:>9,} {u.cache_read:>9,} {u.input:>9,} {u.output:>7,}"


HEAD = f"{'calls':>4} {'prompt':>9} {'cached':>9} {'uncached':>9} {'output':>7}"


def render(b: Bill, *, requests: bool = True, model: str | list[str] | None = None, rule: str | None = None) -> str:
    """The bill as text (what the command prints); ``model``: one model or several, each priced."""
    # relative to where you run it: the same text on every clone of the course (and in the lab's stored output)
    out = [f"bill of {os.path.relpath(b.path)}" + (f" (recording, {len(b.recording.calls)} requests in the server's order)"
                                  if b.recording is not None else "")]
    if requests:
        out += ["", "per request:", f"  {'#':>4} {'session':<24} {'kind':<10} {'round':>5} {'prompt':>7} "
                f"{'cached':>7} {'output':>6} {'prompt_ms':>10}"]
        for i, l in enumerate(b.lines()):
            label = (l.session or l.file.name)[:24]
            seq = l.seq if l.seq is not None else i
            if l.usage is None:
                out.append(f"  {seq:>4} {label:<24} {l.kind:<10} {l.round if l.round is not None else '':>5} "
                           f"refused: {l.refused}")
                continue
            ms = f"{l.prompt_ms:,.0f}" if l.prompt_ms is not None else "-"
            cached = "?" if l.usage.unreported else f"{l.usage.cache_read:,}"
            out.append(f"  {seq:>4} {label:<24} {l.kind:<10} {l.round if l.round is not None else '':>5} "
                       f"{l.usage.prompt:>7,} {cached:>7} {l.usage.output:>6,} {ms:>10}")
    out += ["", "per session:", f"  {'session':<40} {HEAD}"]
    for name, u in b.by_session().items():
        out.append(f"  {name[-40:]:<40} {_fmt_usage(u)}")
    tree = [(depth, c) for r in b.roots for depth, c in _tree(r, 1)]
    if tree:
        sessions = {}  # a recording names its sessions: show a child by its session id
        if b.recording is not None:
            sessions = {(b.path / s["file"]).resolve(): s["id"] for s in b.recording.manifest["sessions"]}
        out += ["", "per child (own requests + its children):", f"  {'child':<40} {HEAD}"]
        for depth, c in tree:
            label = sessions.get(c.bill.path.resolve(), c.bill.path.name)
            name = "  " * (depth - 1) + (label + (f" [{c.mode}, {c.status}]" if c.mode else " [no entry]"))
            out.append(f"  {name[-40:]:<40} {_fmt_usage(c.bill.total)}")
    t = b.total
    prompt_s, gen_s = b.seconds()
    refused = sum(1 for l in b.lines() if l.usage is None)
    out += ["", "totals:",
            f"  requests answered {t.calls:,}" + (f", refused {refused:,} (not billed: nothing computed)" if refused else ""),
            f"  OpenAI style:    prompt_tokens {t.prompt:,} (cached_tokens {t.cache_read:,} included), "
            f"completion_tokens {t.output:,}",
            f"  Anthropic style: input_tokens {t.input:,}, cache_read_input_tokens {t.cache_read:,}, "
            f"cache_creation_input_tokens {t.cache_write:,}, output_tokens {t.output:,}",
            f"  naive sum (prompt_tokens + cache reads): {t.naive_input():,} input tokens, "
            f"{t.naive_input() - t.prompt:,} counted twice",
            f"  server seconds (timings): prompt {prompt_s:,.1f} s, generation {gen_s:,.1f} s"]
    if t.unreported:
        out.append(f"  {t.unreported} requests reported no cached count: their prompt is counted as uncached")
    for one in ([model] if isinstance(model, str) else list(model or [])):
        cost = price(b, one, rule)
        out += ["", f"priced: {one}, rule {rule or default_rule(b, one)}", *("  " + x for x in cost.explain().splitlines()),
                f"  prices: {cost.source}"]
    stops = [x for r in b.roots for x in r.all_stops()]
    if stops:
        out += ["", "stopped by a limit (the bill holds every request sent before the stop):", *("  " + x for x in stops)]
    notes = b.notes()
    if notes:
        out += ["", "notes:", *("  " + n for n in notes)]
    return "\n".join(out) + "\n"


def _tree(bill: SessionBill, depth: int):
    for child in bill.children:
        yield depth, child
        yield from _tree(child.bill, depth + 1)


def as_json(b: Bill) -> dict:
    def one(sb: SessionBill) -> dict:
        return {"file": str(sb.path), "own": sb.own.openai() | {"calls": sb.own.calls},
                "total": sb.total.openai() | {"calls": sb.total.calls},
                "children": [{"entry": c.entry_id, "mode": c.mode, "status": c.status, **one(c.bill)}
                             for c in sb.children]}
    t = b.total
    return {"path": str(b.path), "total": {"openai": t.openai(), "anthropic": t.anthropic(), "calls": t.calls},
            "seconds": dict(zip(("prompt", "generation"), b.seconds())), "sessions": [one(r) for r in b.roots],
            "stopped": [x for r in b.roots for x in r.all_stops()], "notes": b.notes()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m prefixlab bill",
        description="整单账单:一个会话文件(连同它的子会话)或一份录制的逐请求、逐会话、逐子会话的用量与合计,"
                    "两种记账口径都列出;给了 --model 就按带日期的价目表折算。")
    parser.add_argument("path", type=Path, help="a session file (.jsonl) or a recording directory")
    parser.add_argument("--model", action="append", help="price the bill at this model's list prices (data/prices/), "
                        "e.g. claude-sonnet-5-5; give it again to price at several (Anthropic and OpenAI side by side)")
    parser.add_argument("--rule", choices=(RECORDED, *rules.RULES), help="whose cache counts the tokens: 'recorded' (as the server reported them) or "
                                       "the provider's rule (anthropic, openai, openai-breakpoints, deepseek, kimi, qwen; recordings only). "
                                       "Default: the model's rule for a recording, 'recorded' for a session file")
    parser.add_argument("--no-requests", action="store_true", help="leave out the per-request table")
    parser.add_argument("--json", action="store_true", help="the bill as JSON (totals, sessions, children)")
    args = parser.parse_args(argv)
    if args.rule and not args.model:
        parser.error("--rule needs --model (a rule only matters for a price)")
    try:
        b = bill(args.path)
        if args.json:
            doc = as_json(b)
            for model in args.model or []:
                cost = price(b, model, args.rule)
                doc.setdefault("priced", []).append(
                    {"model": cost.model, "rule": args.rule or default_rule(b, model), "usd": cost.total,
                     "terms": {t.name: t.usd for t in cost.terms}, "source": cost.source})
            print(json.dumps(doc, ensure_ascii=False, indent=1))
        else:
            sys.stdout.write(render(b, requests=not args.no_requests, model=args.model, rule=args.rule))
    except (BillError, pricing.PricingError) as err:
        print(f"python -m prefixlab bill: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
