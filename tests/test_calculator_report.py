"""``python -m prefixlab.report``: the table, the summary, prices, and clear errors (exit code 2)."""
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlab.presenting import report

ROOT = Path(__file__).resolve().parent.parent
REC = ROOT / "data" / "recordings" / "t10-smollm2-llamacpp"


def run(capsys, *args):
    code = report.main([str(REC), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_table_and_summary(capsys):
    code, out, _ = run(capsys, "--session", "refresh-day1", "--text")
    lines = out.splitlines()
    assert code == 0
    assert lines[1].split()[:9] == ["seq", "session", "rnd", "prompt", "cached", "read", "write", "fresh", "break"]
    assert len([l for l in lines if " refresh-day1 " in l]) == 10
    assert "memory_body" in out and '"Checks: run"' in out
    assert lines[-1].startswith("10 requests, rule llamacpp: 10 with a measured cached_tokens, 10 predicted exactly, 0 differ")


def test_prices_are_called_a_conversion(capsys):
    code, out, _ = run(capsys, "--model", "claude-haiku-4-5", "--session", "refresh-day1")
    assert code == 0
    assert "cost $" in out and "refresh vs no refresh" in out and "ratio" in out
    assert "Conversion, not a bill" in out


def test_other_rules_are_shown_not_compared(capsys):
    code, out, _ = run(capsys, "--rule", "anthropic", "--model", "claude-opus-5", "--breakpoint", "memory_header:5m",
                       "--session", "refresh-day1")
    assert code == 0 and "shown, not compared" in out


def test_counterfactual_tables(capsys):
    code, out, _ = run(capsys, "--counterfactual", "4")
    assert code == 0 and "refresh right after round 4 of frozen-day1" in out
    code, out, _ = run(capsys, "--counterfactuals")
    assert code == 0
    assert out.splitlines()[-1].startswith("counterfactuals: 9 values of k, 9 built token-identical")


@pytest.mark.parametrize("args, message", [
    (["--model", "claude-nope"], "unknown anthropic model 'claude-nope'"),
    (["--counterfactual", "0"], "k=0 is out of range"),
    (["--counterfactual", "99"], "must be an integer in 1..9"),
    (["--session", "nope"], "unknown session 'nope'"),
    (["--breakpoint", "memory_header"], "use it with --rule anthropic"),
    (["--rule", "anthropic", "--breakpoint", "nope"], "breakpoint on unknown block 'nope'"),
    (["--rule", "anthropic", "--breakpoint", "base:2h"], "ttl must be one of"),
])
def test_bad_input(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2 and message in err and "Traceback" not in err


def test_unknown_rule(capsys):
    with pytest.raises(SystemExit) as exit_info:
        report.main([str(REC), "--rule", "nope"])
    assert exit_info.value.code == 2 and "invalid choice: 'nope'" in capsys.readouterr().err


def digest(path: Path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.iterdir())}


def test_invalid_recording_is_refused_and_left_alone(tmp_path, capsys):
    bad = tmp_path / "bad"
    shutil.copytree(REC, bad)
    manifest = json.loads((bad / "manifest.json").read_text())
    del manifest["order"][0]["epoch"]
    (bad / "manifest.json").write_text(json.dumps(manifest))
    before = digest(bad)
    code = report.main([str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and "field order/0: 'epoch' is a required property" in err
    assert digest(bad) == before
    assert report.main([str(tmp_path / "missing")]) == 2
    assert "not a recording" in capsys.readouterr().err


def test_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "prefixlab.report", str(REC), "--session", "frozen-day2"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "0 differ" in done.stdout


def test_a_breakpoint_on_a_tool_block(capsys):
    # the block names of tools hold a colon: tool:read_file, with or without a TTL after it
    for spec in ("tool:read_file", "tool:read_file:1h"):
        code, out, err = run(capsys, "--rule", "anthropic", "--breakpoint", spec, "--session", "refresh-day1")
        assert code == 0, err


def test_a_model_of_another_provider_than_the_rule(capsys):
    code, out, err = run(capsys, "--rule", "anthropic", "--model", "gpt-5-4")
    assert code == 2 and "Traceback" not in err
    assert "gpt-5-4 is an openai model" in err and "--rule openai" in err
    code, out, err = run(capsys, "--rule", "openai", "--model", "claude-haiku-4-5")
    assert code == 2 and "claude-haiku-4-5 is an anthropic model" in err and "--rule anthropic" in err


def test_a_model_of_the_same_provider_switches_scheme_and_says_so(capsys):
    code, out, _ = run(capsys, "--rule", "openai", "--model", "gpt-6-2-sol", "--session", "refresh-day1")
    assert code == 0 and "caches under rule openai-breakpoints, not openai" in out
