"""benchmarks/MUTATION.md is generated from the stored mutation runs, every survivor has a reason, and the
runs describe today's rule code; the mutation tool itself tells a killed mutant from a surviving one."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import mutation_report  # noqa: E402
from mutate_rules import mutants  # noqa: E402


def test_the_report_matches_the_runs_and_every_survivor_has_a_reason():
    assert mutation_report.problems() == []
    assert mutation_report.REPORT.read_text(encoding="utf-8") == mutation_report.render()


def test_every_cloud_rule_has_a_run_over_all_its_mutants():
    for rule in ("anthropic", "openai", "deepseek", "kimi", "qwen"):
        run = mutation_report.load(rule, "after")
        source = (ROOT / run["module"]).read_text(encoding="utf-8")
        assert run["selected"] == "all" and run["mutants"] == len(list(mutants(source))), rule


def test_the_llamacpp_run_covers_the_float32_sites_the_audit_left_open():
    # issue 42: #92-#101 (update's float32 roundings) and #118-#123 (f_keep's), by the tool's numbering
    run = mutation_report.load("llamacpp", "after")
    assert set(range(92, 102)) | set(range(118, 124)) <= {r["n"] for r in run["results"]}


def test_the_tool_reports_a_killed_and_a_surviving_mutant():
    # kimi #0 (the 5-minute TTL 300 -> 301) is killed by the TTL-instant test; #3 is the equivalent one
    result = subprocess.run([sys.executable, "benchmarks/mutate_rules.py", "prefixlab/cache/rules/kimi.py",
                             "tests/test_rules_kimi_deepseek_mutants.py", "--only", "0,3"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stderr
    assert "constant 300.0 -> 301.0: killed" in result.stdout
    assert "constant 0 -> 1: SURVIVED" in result.stdout
    assert "1 of 2 mutants killed; 1 survived" in result.stdout
