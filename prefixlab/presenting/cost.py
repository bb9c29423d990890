"""The price of one solved task: an evaluation's bill divided by what it solved, not by its runs.

    per_solved(runs, folder)        # {(design, rule): Priced}: every provider the calculator has
    Priced.per_solved_usd           # dollars per solved task; None when nothing was solved (never 1/0)

A run that fails costs as much as one that passes, so the price of a success is

    price per solved task = what all the runs cost / how many of them passed
                          = price per run / pass rate

and a design that is cheaper per run but fails more can cost more per success. With 0 passes the price
per solved task is not a big number but undefined ("nothing solved": infinite, as the interval's far
end): this module returns None and says why, it never divides by zero.

Where the numbers come from, provider by provider (``PROVIDERS``):

    llamacpp   measured: the run's own ``prompt_tokens`` / ``cached_tokens`` / ``completion_tokens`` as the
               server reported them (the result rows); no dollars (a local server), server seconds instead
    anthropic, openai, deepseek, kimi, qwen
               the run's requests replayed under that provider's cache rule (``prefixlab.cache.calculator``
               through ``prefixlab.presenting.bill.price``) when the run's session sits in a recording
               (a folder with a ``manifest.json``: the chat template and tokenizer the replay needs), and
               priced at that provider's dated table in ``data/prices/``; otherwise the measured counts
               converted at the table (``basis`` says which). Either way a conversion, not a bill: our
               model's tokenizer counts the tokens.

``assumptions(provider)`` states what a number rests on: the rule's cache lifetime, the time between runs
(the recorded clock: a new epoch is a fresh server, an empty cache), the table's date and public URL.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from prefixlab.cache import pricing
from prefixlab.eval import stats
from prefixlab.eval.rows import Run

from . import bill


@dataclass(frozen=True)
class Provider:
    rule: str          # the cache rule (prefixlab.cache.rules.RULES)
    label: str         # how the pages name it
    model: str | None  # the priced model (None: the local server, measured, not priced)


# Six ways to bill: the local server measured, five cloud providers each at one representative model.
PROVIDERS = (
    Provider("llamacpp", "llama.cpp(实测)", None),
    Provider("anthropic", "Anthropic", "claude-sonnet-5-5"),
    Provider("openai", "OpenAI", "gpt-5-5"),
    Provider("deepseek", "DeepSeek", "deepseek-v4-flash"),
    Provider("kimi", "Kimi", "kimi-k3-1-pro"),
    Provider("qwen", "Qwen 百炼", "qwen3-max"),
)

# Each rule's cache lifetime as the calculator models it (prefixlab/cache/rules/<rule>.py; sources in
# data/prices/SOURCES.md).
LIFETIME = {
    "llamacpp": "不过期:槽位里的 prompt 留到被下一个请求覆盖(实测)",
    "anthropic": "5 分钟,每次读取续期(默认 ttl 5m)",
    "openai": "in_memory 保留:空闲几分钟后过期(规则的默认值)",
    "deepseek": "未公布:规则里不过期",
    "kimi": "5 分钟(默认 5m;出处未确认)",
    "qwen": "隐式缓存不说寿命:规则里不过期(最好情况)",
}

REPLAYED, CONVERTED, MEASURED = "replayed", "converted", "measured"


class CostError(ValueError):
    """A run whose session the price cannot find or read; the message names the run and the file."""


@dataclass(frozen=True)
class Priced:
    """One design's runs under one provider: totals, and per run and per solved task."""

    design: str
    provider: Provider
    basis: str              # MEASURED (llamacpp), REPLAYED (the rule replayed) or CONVERTED (measured counts, priced)
    runs: int
    solved: int
    prompt_tokens: int
    read_tokens: int        # served from the cache (measured, or the rule's prediction)
    output_tokens: int
    usd: float | None       # None: not priced (the local server)
    seconds: float          # the runs' wall-clock seconds (a loaded, shared machine: not a timing result)
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def pass_rate(self) -> float:
        return self.solved / self.runs

    def _per(self, total: float | None) -> float | None:
        return None if total is None or self.solved == 0 else total / self.solved

    @property
    def per_solved_usd(self) -> float | None:
        """Dollars per solved task; None when nothing was solved (undefined, not zero) or not priced."""
        return self._per(self.usd)

    @property
    def per_run_usd(self) -> float | None:
        return None if self.usd is None else self.usd / self.runs

    @property
    def per_solved_tokens(self) -> float | None:
        return self._per(self.prompt_tokens)

    @property
    def per_solved_read(self) -> float | None:
        return self._per(self.read_tokens)

    @property
    def per_solved_output(self) -> float | None:
        return self._per(self.output_tokens)

    @property
    def per_solved_seconds(self) -> float | None:
        return self._per(self.seconds)

    def per_solved_usd_interval(self) -> tuple[float, float] | None:
        """The price per solved task at the two ends of the pass rate's 95 % interval (the per-run price
        held fixed): (low, high); high is ``math.inf`` when the interval reaches 0. None: not priced."""
        if self.usd is None:
            return None
        ci = stats.wilson(self.solved, self.runs)
        per_run = self.usd / self.runs
        return (per_run / ci.high, float("inf") if ci.low == 0 else per_run / ci.low)

    @property
    def why_undefined(self) -> str | None:
        """Why there is no price per solved task (None when there is one)."""
        if self.solved == 0:
            return f"0 of {self.runs} runs solved: the price per solved task is undefined (infinite), not 0"
        return None


# -- where a run's session is, and the recording that can replay it ---------------------------------------

def _manifest(folder: Path) -> dict | None:
    path = folder / "manifest.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def locate(run: Run, folder: Path) -> tuple[Path, list[str] | None]:
    """(recording directory, the run's sessions in it) that hold ``run``'s requests; None: the whole recording.

    ``run.session`` is a recording directory (one run, one recording), or a session file inside a
    recording (the results folder, or a folder below it, with a ``manifest.json``): then the run's
    sessions are the manifest's sessions in that file and in its children's folder
    (``<stem>.children/``). Anything else is (session file, None): billed as recorded, not replayed.
    """
    target = folder / run.session
    if not target.exists():
        raise CostError(f"{folder}: run {run.task}/{run.design}/seed {run.seed}: its session {run.session!r} "
                        "does not exist")
    if target.is_dir():
        if _manifest(target) is None:
            raise CostError(f"{target}: a run's session folder without a manifest.json (not a recording)")
        return target, None
    rec = target.parent
    while True:
        manifest = _manifest(rec)
        if manifest is not None:
            rel = target.relative_to(rec).as_posix()
            children = rel.removesuffix(".jsonl") + ".children/"
            ids = [s["id"] for s in manifest.get("sessions", [])
                   if s.get("file") == rel or str(s.get("file", "")).startswith(children)]
            if not ids:
                raise CostError(f"{rec}: no session in the manifest uses the file {rel!r} (run {run.task}/"
                                f"{run.design}/seed {run.seed})")
            return rec, ids
        if rec == folder or folder not in rec.parents:
            return target, None
        rec = rec.parent


@lru_cache(maxsize=64)
def _bill(path: Path) -> bill.Bill:
    return bill.bill(path)


@lru_cache(maxsize=32)
def _replayed(path: Path, model: str):
    """A recording's requests replayed once under ``model``'s provider rule: (rows, outputs by seq, price).

    The same replay as ``bill.price`` (the whole recording, in the server's order: the cache is shared
    between runs), done once per recording and model instead of once per run."""
    from prefixlab.cache import calculator, rules

    b = _bill(path)
    listed = pricing.model_price(model)
    rows = calculator.analyze(b.recording, listed.rule, **rules.settings(listed.rule, model=listed.model))
    outputs = {l.seq: (l.usage.output if l.usage and listed.output is not None else 0) for l in b.lines()}
    return rows, outputs, listed


def _replay_cost(path: Path, model: str, sessions: list[str] | None) -> pricing.CostBreakdown:
    rows, outputs, listed = _replayed(path, model)
    wanted = set(sessions) if sessions is not None else None
    accepted = [r for r in rows if r.refused is None and (wanted is None or r.session in wanted)]
    cost = pricing.total_cost([r.prediction for r in accepted], model, output_tokens=[outputs[r.seq] for r in accepted])
    if listed.output is None:
        cost = replace(cost, notes=cost.notes + (bill.no_output_price(listed),))
    return cost


def _price_one(run: Run, folder: Path, p: Provider) -> tuple[str, int, float, list[str]]:
    """(basis, read tokens, dollars, notes) of one run under cloud provider ``p``."""
    if run.requests == 0:  # a scripted policy (the oracle) sends nothing: nothing to replay, nothing to pay
        return REPLAYED, 0, 0.0, []
    where, sessions = locate(run, folder)
    b = _bill(where)
    if b.recording is not None:
        cost = _replay_cost(where, p.model, sessions)
        read = sum(t.tokens for t in cost.terms if t.name.startswith("read"))
        return REPLAYED, read, cost.total, list(cost.notes)
    # a session file alone: the server's counts, converted at the table (no replay without a manifest)
    listed = pricing.model_price(p.model)
    uncached = run.prompt_tokens - run.cached_tokens
    usd = (uncached * listed.base_input + run.cached_tokens * listed.price("read")
           + run.completion_tokens * float(listed.output or 0)) / pricing.MTOK
    return CONVERTED, run.cached_tokens, usd, ["measured cache counts converted at the table (no recording to replay)"]


def price_design(runs: list[Run], folder: Path | str, p: Provider) -> Priced:
    """One design's runs (all of the same design) under provider ``p``."""
    folder = Path(folder)
    if not runs:
        raise CostError("no runs to price")
    designs = sorted({r.design for r in runs})
    if len(designs) != 1:
        raise CostError(f"price one design at a time; got {', '.join(designs)}")
    solved = sum(r.passed for r in runs)
    prompt = sum(r.prompt_tokens for r in runs)
    output = sum(r.completion_tokens for r in runs)
    seconds = sum(r.seconds for r in runs)
    if p.model is None:
        return Priced(designs[0], p, MEASURED, len(runs), solved, prompt, sum(r.cached_tokens for r in runs),
                      output, None, seconds)
    read, usd, bases, notes = 0, 0.0, set(), []
    for r in runs:
        basis, n, dollars, more = _price_one(r, folder, p)
        read, usd = read + n, usd + dollars
        bases.add(basis)
        notes += [m for m in more if m not in notes]
    basis = REPLAYED if bases == {REPLAYED} else CONVERTED
    return Priced(designs[0], p, basis, len(runs), solved, prompt, read, output, usd, seconds, tuple(notes))


def per_solved(runs: list[Run], folder: Path | str, providers=PROVIDERS) -> dict[tuple[str, str], Priced]:
    """Every design of ``runs`` under every provider: {(design, rule): Priced}."""
    out = {}
    for design in sorted({r.design for r in runs}):
        mine = [r for r in runs if r.design == design]
        for p in providers:
            out[design, p.rule] = price_design(mine, folder, p)
    return out


# -- what the numbers rest on -------------------------------------------------------------------------

@dataclass(frozen=True)
class Assumptions:
    rule: str
    lifetime: str
    table_url: str | None
    table_date: str | None
    model: str | None


def assumptions(p: Provider) -> Assumptions:
    """The cache lifetime the rule assumes, and the price table's public URL and date."""
    if p.model is None:
        return Assumptions(p.rule, LIFETIME[p.rule], None, None, None)
    listed = pricing.model_price(p.model)
    table = pricing.load_table(listed.provider)
    return Assumptions(p.rule, LIFETIME[p.rule], table["source"]["url"], str(table["source"]["taken"]), listed.model)


def gaps(folder: Path | str) -> dict:
    """The recorded clock of a recording folder: the longest gap between two requests of the same epoch
    (seconds) and how many epochs (fresh servers, empty caches) it has; {} when the folder is no recording."""
    folder = Path(folder)
    if _manifest(folder) is None:
        return {}
    rec = _bill(folder).recording
    by_epoch: dict[int, list[float]] = {}
    for c in rec.calls:
        by_epoch.setdefault(c.epoch, []).append(c.t)
    longest = max((b - a for ts in by_epoch.values() for a, b in zip(ts, ts[1:])), default=0.0)
    return {"epochs": len(by_epoch), "longest_gap_seconds": longest}
