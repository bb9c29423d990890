"""Write (or check) benchmarks/MUTATION.md from the mutation runs stored in benchmarks/mutation/.

    .venv/bin/python benchmarks/mutation_report.py          # rewrite MUTATION.md
    .venv/bin/python benchmarks/mutation_report.py --check  # fail if it is out of date

Each rule has ``<rule>.before.json`` (the tests before this round of boundary tests) and
``<rule>.after.json`` (today's tests), both written by ``benchmarks/mutate_rules.py --json``. Every
number in MUTATION.md comes from those files; the reason a mutant survives comes from
benchmarks/mutation_notes.yml. ``--check`` also fails when a surviving mutant has no reason, when a
reason names a mutant that is killed or described differently, or when a rule module's code (docstrings
and comments aside) changed since its after-run: then re-run the command the report lists.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "benchmarks" / "mutation"
NOTES = ROOT / "benchmarks" / "mutation_notes.yml"
REPORT = ROOT / "benchmarks" / "MUTATION.md"
BASE = "539dd05"  # the commit the before-runs were made at
RULES = ("llamacpp", "anthropic", "openai", "deepseek", "kimi", "qwen")

sys.path.insert(0, str(ROOT / "benchmarks"))
from mutate_rules import fingerprint, mutants  # noqa: E402


def load(rule: str, which: str) -> dict | None:
    path = RUNS / f"{rule}.{which}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def survivors(run: dict) -> list[dict]:
    return [r for r in run["results"] if r["outcome"] == "SURVIVED"]


def scope(run: dict) -> set[int]:
    return {r["n"] for r in run["results"]}


def killed_before(rule: str) -> tuple[int | None, list[str]]:
    """Of the after-run's mutants, how many the earlier tests killed, and any reason that cannot be told.

    A before-run may cover fewer mutants (``--only``: those this round's tests were written for); every
    other mutant's before-outcome follows from the after-run: one the after-run killed with a test the
    earlier suite already had (``killed_by`` is in the before-run's ``collected``) was killed before
    too, and one that survives today's tests survived the smaller earlier suite."""
    before, after = load(rule, "before"), load(rule, "after")
    if before is None:
        return None, []
    issues = []
    if before.get("code_sha256") not in (None, after.get("code_sha256")):
        issues.append(f"{rule}: the before-run was made from other code than the after-run")
    outcome = {r["n"]: r["outcome"] for r in before["results"]}
    old_tests = set(before.get("collected", []))
    killed = 0
    for r in after["results"]:
        if r["n"] in outcome:
            killed += outcome[r["n"]] != "SURVIVED"
        elif r["outcome"] == "SURVIVED":
            continue
        elif r.get("killed_by") in old_tests:
            killed += 1
        else:
            issues.append(f"{rule}: #{r['n']} was killed by {r.get('killed_by')}, a new test: add it to the before-run")
    return killed, issues


def problems() -> list[str]:
    notes = yaml.safe_load(NOTES.read_text(encoding="utf-8")) or {}
    out = []
    for rule in RULES:
        after = load(rule, "after")
        if after is None:
            out.append(f"{rule}: no after-run ({RUNS / (rule + '.after.json')})")
            continue
        source = (ROOT / after["module"]).read_text(encoding="utf-8")
        if after.get("code_sha256") != fingerprint(source):
            out.append(f"{rule}: {after['module']} changed since its mutation run; re-run: {command(after)}")
        out += killed_before(rule)[1]
        alive = {r["n"]: r for r in survivors(after)}
        given = notes.get(rule) or {}
        if after["selected"] != "all" and rule not in (notes.get("_scope") or {}):
            out.append(f"{rule}: the after-run covers only some mutants; say why under _scope in {NOTES.name}")
        for n, r in alive.items():
            if n not in given:
                out.append(f"{rule}: mutant #{n} ({r['mutation']}, line {r['line']}) survives with no reason in {NOTES.name}")
            elif given[n]["mutation"] != r["mutation"]:
                out.append(f"{rule}: the note for #{n} says {given[n]['mutation']!r}, the run says {r['mutation']!r}")
        for n in given:
            if n not in alive:
                out.append(f"{rule}: {NOTES.name} explains #{n}, which does not survive (remove the note)")
    return out


def command(run: dict) -> str:
    only = "" if run.get("selected", "all") == "all" else " --only " + ",".join(map(str, run["selected"]))
    return (f"python benchmarks/mutate_rules.py {run['module']} {' '.join(run['tests'])}{only} "
            f"--json benchmarks/mutation/{Path(run['module']).stem}.after.json")


def render() -> str:
    notes = yaml.safe_load(NOTES.read_text(encoding="utf-8")) or {}
    lines = [
        "# Mutation score of the cache rules",
        "",
        "Generated by `benchmarks/mutation_report.py` from `benchmarks/mutation/*.json` (written by",
        "`benchmarks/mutate_rules.py --json`) and the reasons in `benchmarks/mutation_notes.yml`; do not edit",
        "by hand. `tests/test_mutation_report.py` fails when this file, the runs or the reasons disagree, or",
        "when a rule's code changed after its run. A mutant is one small change to the rule (an operator, a",
        "constant, a float32 rounding dropped, ...); it is killed when at least one test fails.",
        f"\"Before\" is the tests at commit {BASE} (before this round's boundary tests); \"after\" is today's.",
        "",
        "| rule | mutants | killed before | killed after | survivors |",
        "|---|---:|---:|---:|---:|",
    ]
    for rule in RULES:
        before, after = load(rule, "before"), load(rule, "after")
        n_before = killed_before(rule)[0]
        b = "not run" if n_before is None else str(n_before)
        total = len(list(mutants((ROOT / after["module"]).read_text(encoding="utf-8"))))
        n = f"{after['mutants']}" if after["selected"] == "all" else f"{after['mutants']} of {total} \\*"
        lines.append(f"| {rule} | {n} | {b} | {after['killed']} | {len(survivors(after))} |")
    scopes = notes.get("_scope") or {}
    for rule in RULES:
        after = load(rule, "after")
        if after["selected"] != "all":
            lines += ["", f"\\* {rule}: mutants #{', #'.join(map(str, after['selected']))} only. " + scopes.get(rule, "")]
    lines += ["", "Every survivor is equivalent (no input can tell it from the rule) or unreachable:", ""]
    for rule in RULES:
        after = load(rule, "after")
        alive = survivors(after)
        lines.append(f"## {rule}")
        lines.append("")
        lines.append(f"`{command(after)}`")
        before = load(rule, "before")
        if before:
            lines.append("")
            lines.append(f"Before ({BASE}): the tests {', '.join('`' + t + '`' for t in before['tests'])}.")
        lines.append("")
        if not alive:
            lines.append("No survivors.")
        for r in alive:
            why = (notes.get(rule) or {}).get(r["n"], {}).get("why", "NO REASON GIVEN")
            lines.append(f"- #{r['n']} (line {r['line']}, {r['mutation']}): {why}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    found = problems()
    text = render() if not any("no after-run" in p for p in found) else None
    if args.check:
        if text is not None and (not REPORT.exists() or REPORT.read_text(encoding="utf-8") != text):
            found.append(f"{REPORT.name} is out of date: run benchmarks/mutation_report.py")
        for p in found:
            print(p, file=sys.stderr)
        return 1 if found else 0
    if text is None:
        for p in found:
            print(p, file=sys.stderr)
        return 1
    REPORT.write_text(text, encoding="utf-8")
    for p in found:
        print(p, file=sys.stderr)
    print(f"wrote {REPORT.relative_to(ROOT)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
