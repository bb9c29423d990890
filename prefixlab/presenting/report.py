"""Print the calculator's per-request table for a recording.

    python -m prefixlab.report data/recordings/<recording>
    python -m prefixlab.report REC --session refresh-day1 --text          # with the text around each break
    python -m prefixlab.report REC --rule anthropic --model claude-haiku-4-5 --breakpoint memory_header
    python -m prefixlab.report REC --model claude-sonnet-4-5             # + cost per request, refresh vs frozen
    python -m prefixlab.report REC --rule openai --model gpt-6-2-sol     # GPT-5.6+: the breakpoint rule
    python -m prefixlab.report REC --rule anthropic --between-days recorded   # day 2 seconds after day 1
    python -m prefixlab.report REC --counterfactual 3                    # refresh right after round 3
    python -m prefixlab.report REC --counterfactuals                     # every recorded k: built vs measured

Columns: seq, session, round, prompt tokens, measured cached_tokens ("-" = not reported),
predicted read / write / fresh, the block where the prefix breaks, and ok (predicted read ==
measured; only shown for the rule of the server that made the recording).
Costs are always computed under the cache rule of the model's provider: with a local --rule the
same requests are replayed under that cloud rule for the cost column (and the output says so).
Cloud rules see a day pass between recorded days (--between-days auto); local rules keep the
recorded clock, because a running llama-server keeps its cache whatever the time.
Exit codes: 0 fine; 1 the recorded server's rule disagrees with a measurement; 2 bad input
(unknown rule, model, session or block, a model of another provider than --rule, k out of range,
a recording or price table that fails validation: the message names the file, line or model, and field).
"""
from __future__ import annotations

import argparse
import json
import re
import sys

from prefixlab.cache import calculator, counterfactual, pricing, rules
from prefixlab.cache.template import ChatRequestError
from prefixlab.cache.tokenizer import TokenizerAssetError
from prefixlab.cache.rules.anthropic import Breakpoint, CacheControlError
from prefixlab.recording.format import RecordingError

class BadInput(ValueError):
    pass


def recorded_rule(recording) -> str | None:
    """The rule of the server that made the recording (its measurements prove that rule)."""
    return rules.for_server(recording.provenance["server"].get("kind"))


def parse_breakpoint(text: str) -> Breakpoint:
    """BLOCK or BLOCK:TTL; a block name may hold a colon itself (tool:read_file, tool:read_file:1h)."""
    block, _, ttl = text.rpartition(":")
    if not block or not re.fullmatch(r"\d+[smhd]", ttl):  # no TTL given: all of it names the block
        block, ttl = text, "5m"
    try:
        return Breakpoint(block, ttl)
    except ValueError as err:
        raise BadInput(str(err)) from None


def _cell(value) -> str:
    return "-" if value is None else str(value)


def format_table(rows, comparable: bool, costs=None, text: bool = False) -> list[str]:
    head = f"{'seq':>4} {'session':<25} {'rnd':>3} {'prompt':>6} {'cached':>6} {'read':>6} {'write':>6} {'fresh':>6}  {'break':<16} {'ok':<3}"
    if costs is not None:
        head += f" {'cost $':>10}"
    if text:
        head += "  text before | after the break"
    lines = [head]
    for i, r in enumerate(rows):
        ok = ("yes" if r.ok else "NO") if comparable and r.ok is not None else "-"
        cached = "refused" if r.refused is not None else _cell(r.measured)  # the server's HTTP 400
        read = "refused" if r.predicted_refused is not None else r.read     # the rule's prediction of it
        line = (f"{_cell(r.seq if r.seq >= 0 else None):>4} {r.session[:25]:<25} {r.round:>3} {r.prompt_tokens:>6} "
                f"{cached:>6} {read:>6} {r.write:>6} {r.fresh:>6}  {_cell(r.break_block)[:16]:<16} {ok:<3}")
        if costs is not None:
            line += f" {costs[i].total:>10.6f}"
        if text:
            line += f"  {json.dumps(r.before_break, ensure_ascii=False)} | {json.dumps(r.after_break, ensure_ascii=False)}"
        lines.append(line)
    return lines


def rule_kwargs(args, rule: str | None = None) -> dict:
    takes = rules.get(rule or args.rule).TAKES
    kwargs = {}
    if args.breakpoint:
        if "breakpoints" not in takes:
            with_breakpoints = " or ".join(name for name, rule in rules.RULES.items() if "breakpoints" in rule.TAKES)
            raise BadInput("--breakpoint places an Anthropic cache_control breakpoint; "
                           f"use it with --rule {with_breakpoints}")
        kwargs["breakpoints"] = tuple(parse_breakpoint(b) for b in args.breakpoint)
    if "model" in takes and args.model:
        kwargs.update(rules.get(rule or args.rule).model_settings(args.model))  # minimum, retention
    return kwargs


def between_days(text: str):
    """--between-days: auto, recorded, or a number of seconds."""
    if text == "auto":
        return "auto"
    if text == "recorded":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected auto, recorded or seconds, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seconds must be >= 0, got {text}")
    return value


def pricing_rule(rule: str, model: str) -> tuple[str, str | None]:
    """The rule whose rows are priced with ``model``, and a note when that is not ``rule``."""
    price = pricing.model_price(model)
    if price.rule == rule:
        return rule, None
    provider = rules.get(rule).PROVIDER
    if provider is not None and provider != price.provider:  # two wishes that contradict each other
        raise BadInput(f"--model {model} is an {price.provider} model, cached under rule {price.rule}; --rule {rule} "
                       f"is {provider}'s cache: use --rule {price.rule}, or an {provider} model "
                       f"({', '.join(pricing.known_models(provider)[:3])}, ...)")
    if rules.get(rule).PROVIDER is None:
        return price.rule, (f"costs: the same requests replayed under rule {price.rule} ({price.name}'s cache); "
                            f"the {rule} rows above are a local server's counts and are not priced")
    return price.rule, f"{price.name} caches under rule {price.rule}, not {rule}: using {price.rule}"


def rows_for(rec, rule: str, args, kwargs: dict):
    if args.counterfactual is not None:
        return counterfactual.predict(rec, args.counterfactual, rule, args.history, **kwargs)
    return calculator.analyze(rec, rule, args.session, between_days=args.between_days, **kwargs)


def group_costs(rec, rows_all, model: str):
    """Cost of the refresh group's main sessions vs the frozen group's (same price table)."""
    groups = {s["id"]: s["group"] for s in rec.manifest["sessions"] if s["kind"] == "main"}
    refresh = [r.prediction for r in rows_all if groups.get(r.session) == "refresh"]
    frozen = [r.prediction for r in rows_all if groups.get(r.session) == "frozen"]
    if not refresh or not frozen:
        return None
    return pricing.refresh_vs_no_refresh(refresh, frozen, model)


def run(args, out=print) -> int:
    try:
        rec = calculator.load_recording(args.recording)
    except (RecordingError, OSError) as err:
        raise BadInput(str(err)) from None  # the message names the file, the line and the field
    price_rule, price_note = None, None
    if args.model:
        try:
            price_rule, price_note = pricing_rule(args.rule, args.model)
        except ValueError as err:
            raise BadInput(str(err)) from None
        if rules.get(args.rule).PROVIDER is not None and price_rule != args.rule:
            out(price_note)  # same provider, other scheme (e.g. GPT-5.6+): switch, never price silently
            args.rule, price_note = price_rule, None
    kwargs = rule_kwargs(args)
    comparable = recorded_rule(rec) in (None, args.rule)

    if args.counterfactuals:
        results = counterfactual.compare_all(rec, args.rule, args.history, **kwargs)
        if not results:
            raise BadInput(f"{rec.path} has no recorded counterfactual sessions")
        out(f"{'k':>2} {'session':<20} {'same requests':<13} {'same tokens':<11} {'rounds':>6} {'agree':>5}  "
            "predicted/measured cached per round")
        for r in results:
            pairs = " ".join(f"{x.read}/{_cell(x.measured)}" for x in r.rows)
            agree = sum(1 for x in r.rows if x.ok)
            out(f"{r.k:>2} {r.session:<20} {str(r.identical_requests):<13} {str(r.identical_tokens):<11} "
                f"{len(r.rows):>6} {agree:>5}  {pairs}")
        bad = sum(1 for r in results if not (r.agree and r.identical_tokens))
        out(f"counterfactuals: {len(results)} values of k, {len(results) - bad} built token-identical to the "
            f"recording and predicted exactly under rule {args.rule}")
        return 1 if bad and comparable else 0

    rows = rows_for(rec, args.rule, args, kwargs)
    if args.counterfactual is not None:
        title = f"counterfactual: refresh right after round {args.counterfactual} of " \
                f"{counterfactual.history_session(rec, args.history)}"
    else:
        gap = calculator.between_days_for(rec, args.rule, args.between_days)
        clock = "recorded clock" if gap is None else f"{gap:g} s between recorded days"
        title = f"{rec.path}: rule {args.rule} ({clock})"
    out(title)
    costs, priced_kwargs = None, {}
    if args.model:
        priced_kwargs = rule_kwargs(args, price_rule)
        priced = rows if price_rule == args.rule else rows_for(rec, price_rule, args, priced_kwargs)
        costs = [pricing.request_cost(r.prediction, args.model) for r in priced]
    for line in format_table(rows, comparable, costs, args.text):
        out(line)
    for r in rows:
        if r.refused is not None or r.predicted_refused is not None:
            out(f"#{r.seq} {r.session} round {r.round}: server: {r.refused or 'answered'}; "
                f"rule: {r.predicted_refused or 'answered'}")
    summary = calculator.summarize(rows)
    if comparable:
        out(summary.line(args.rule))
    else:
        out(f"{summary.requests} requests, rule {args.rule}: measured values come from {rec.provenance['server']['kind']}, "
            f"so they are shown, not compared")
    if args.model:
        total = sum(c.total for c in costs)
        out(f"cost of these {len(rows)} requests at {args.model} list prices: ${total:.6f} (input side only)")
        if price_note:
            out(price_note)
        if args.counterfactual is None:
            all_rows = priced if args.session is None else calculator.analyze(
                rec, price_rule, None, between_days=args.between_days, **priced_kwargs)
            comparison = group_costs(rec, all_rows, args.model)
            if comparison is not None:
                out(f"refresh vs no refresh (main sessions of each group): ${comparison.refresh.total:.6f} vs "
                    f"${comparison.no_refresh.total:.6f}, ratio {comparison.ratio:.3f}")
        out(costs[0].notes[0] if costs else pricing.CONVERSION_NOTE.format(provider="the provider"))
    return 1 if comparable and summary.differ else 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m prefixlab.report", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("recording", help="recording directory (with manifest.json)")
    p.add_argument("--rule", default="llamacpp", choices=calculator.rule_names(), help="cache rule (default: %(default)s)")
    p.add_argument("--session", action="append", help="only rows of this session (repeatable); the whole epoch is still replayed")
    p.add_argument("--model", help="price model, e.g. claude-haiku-4-5 or gpt-5-4: adds cost per request")
    p.add_argument("--breakpoint", action="append", metavar="BLOCK[:TTL]",
                   help="explicit Anthropic breakpoint on a block (base, agents_md, memory_header, memory_body, "
                        "tool:NAME, user#1 ...); TTL 5m or 1h; repeatable")
    p.add_argument("--counterfactual", type=int, metavar="K", help="the requests of a refresh right after round K")
    p.add_argument("--counterfactuals", action="store_true", help="every recorded k: built vs recorded, predicted vs measured")
    p.add_argument("--history", help="main session the counterfactual is built from (default: the frozen group's)")
    p.add_argument("--between-days", type=between_days, default="auto", metavar="auto|recorded|SECONDS",
                   help="time between recorded days: auto = a day for cloud rules, the recorded clock for "
                        "local ones; recorded = as recorded (seconds apart)")
    p.add_argument("--text", action="store_true", help="show the text on each side of the break")
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # unknown --rule: argparse prints the choices, exit code 2
    try:
        return run(args)
    except BrokenPipeError:  # the reader (e.g. `| head`) stopped early; not an error of ours
        sys.stderr.close()
        return 0
    except (BadInput, counterfactual.CounterfactualError, calculator.UnsupportedServerError, CacheControlError) as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2
    except ChatRequestError as err:  # raised while rendering: its message names no file, so we do
        print(f"{parser.prog}: error: {args.recording}: a recorded request cannot be rendered with the chat template "
              f"of manifest.json field provenance.chat_template.text ({err})", file=sys.stderr)
        return 2
    except (ValueError, KeyError) as err:
        # unknown session or breakpoint block, a bad rule setting, a recording or price table that fails
        # validation: each message names what is wrong (recordings and tables are validated on load)
        print(f"{parser.prog}: error: {err.args[0] if err.args else type(err).__name__}", file=sys.stderr)
        return 2
    except TokenizerAssetError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
