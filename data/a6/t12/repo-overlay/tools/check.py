"""The checks of this repository.

There is no pytest or unittest suite here: run `python tools/check.py`
from the repository root. Each check prints PASS or FAIL; the exit code is
the number of failed checks.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from units.convert import parse_temperature, to_celsius  # noqa: E402

ENTRY = re.compile(r"^- (Added|Changed|Fixed|Removed): [^\n]+ \([\w/.]+\)$")


def changelog_problem():
    """None if CHANGELOG.md's `## Unreleased` section has entries and each one has the right form."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    section = text.split("## Unreleased", 1)[1].split("\n## ", 1)[0]
    entries = [line for line in section.splitlines() if line.strip()]
    if not entries:
        return "no entry under ## Unreleased"
    bad = [line for line in entries if not ENTRY.match(line) or line.endswith(".")]
    return f"not an entry: {bad[0]!r}" if bad else None


CHECKS = [
    ("parse plain", lambda: parse_temperature("21.5C"), (21.5, "C")),
    ("parse lowercase unit", lambda: parse_temperature("70f"), (70.0, "F")),
    ("parse negative", lambda: parse_temperature("-3.5C"), (-3.5, "C")),
    ("boiling point", lambda: to_celsius(parse_temperature("212F")), 100.0),
    ("freezing below zero", lambda: to_celsius(parse_temperature("-40F")), -40.0),
    ("changelog format", changelog_problem, None),
]


def main():
    failed = 0
    for name, run, expected in CHECKS:
        try:
            got = run()
        except Exception as err:  # report, do not crash: one line per check
            got = f"{type(err).__name__}: {err}"
        ok = got == expected
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok else f": expected {expected!r}, got {got!r}"))
    print(f"{len(CHECKS) - failed} of {len(CHECKS)} checks pass")
    return failed


if __name__ == "__main__":
    sys.exit(main())
