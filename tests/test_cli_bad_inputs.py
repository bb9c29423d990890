"""Issue 48: no traceback reaches a user from any CLI of the project. Each command line (python -m
miniagent, its session verbs, python -m prefixlab's verbs) gets a table of bad inputs; each must end
with a non-zero exit, no "Traceback" and one clear error line. No server is started: the URL given
points at a closed port, and every case is refused before a request."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CLOSED = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("bad")
    (d / "corrupt.jsonl").write_text('{"type": "session", "id": \n{nope\n')
    (d / "corrupt.json").write_text("{not json")
    (d / "binary.txt").write_bytes(b"\xff\xfe\x00bad")
    (d / "empty.txt").write_text("   \n")
    (d / "ws").mkdir()
    (d / "rec").mkdir()
    (d / "rec" / "manifest.json").write_text("{not json")
    return {k: str(v) for k, v in {"dir": d, "corrupt_jsonl": d / "corrupt.jsonl", "corrupt_json": d / "corrupt.json",
                                    "binary": d / "binary.txt", "empty": d / "empty.txt", "ws": d / "ws",
                                    "missing": d / "missing.jsonl", "rec": d / "rec"}.items()}


AGENT = ["-m", "miniagent"]
CASES = {
    # python -m miniagent: numbers 0 / -1 / not a number for every numeric option
    **{f"{opt} {value}": AGENT + ["t", opt, value] for opt in ("--max-rounds", "--budget", "--compact-at",
                                                                "--memory-limit", "--max-tokens", "--children")
       for value in ("0", "-1", "x", "1.5")},
    **{f"{opt} {value}": AGENT + ["t", opt, value] for opt in ("--retries", "--call-retries") for value in ("-1", "x")},
    **{f"{opt} {value}": AGENT + ["t", opt, value] for opt in ("--timeout", "--request-timeout")
       for value in ("0", "-1", "nan", "x")},
    "empty task": AGENT + ["", "--server", CLOSED],
    "blank task": AGENT + ["   ", "--server", CLOSED],
    "empty task file": AGENT + ["@{empty}", "--server", CLOSED],
    "missing task file": AGENT + ["@{missing}", "--server", CLOSED],
    "binary task file": AGENT + ["@{binary}", "--server", CLOSED],
    "url without scheme": AGENT + ["t", "--server", "127.0.0.1:8080/v1"],
    "url with another scheme": AGENT + ["t", "--server", "ftp://127.0.0.1/v1"],
    "url without host": AGENT + ["t", "--server", "http://"],
    "url with a bad port": AGENT + ["t", "--server", "http://127.0.0.1:port/v1"],
    "missing workspace": AGENT + ["t", "-w", "{missing}", "--server", CLOSED],
    "corrupt session file": AGENT + ["t", "-w", "{ws}", "--session", "{corrupt_jsonl}", "--server", CLOSED],
    "binary session file": AGENT + ["t", "-w", "{ws}", "--session", "{binary}", "--server", CLOSED],
    "binary memory file": AGENT + ["t", "-w", "{ws}", "--memory", "{binary}", "--server", CLOSED],
    "fork from an unknown entry": AGENT + ["t", "-w", "{ws}", "--session", "{missing}", "--fork", "nope",
                                           "--server", CLOSED],
    "missing skills folder": AGENT + ["t", "-w", "{ws}", "--skills", "{missing}", "--server", CLOSED],
    "server down": AGENT + ["t", "-w", "{ws}", "--session", "{dir}/down.jsonl", "--memory", "{dir}/M.md",
                            "--server", CLOSED, "--retries", "0"],
    # python -m miniagent session ...
    "session tree missing": AGENT + ["session", "tree", "{missing}"],
    "session tree corrupt": AGENT + ["session", "tree", "{corrupt_jsonl}"],
    "session tree binary": AGENT + ["session", "tree", "{binary}"],
    "session tree directory": AGENT + ["session", "tree", "{dir}"],
    "session fork unknown": AGENT + ["session", "fork", "{corrupt_jsonl}", "--from", "nope"],
    "session clone missing": AGENT + ["session", "clone", "{missing}", "--leaf", "x", "{dir}/out.jsonl"],
    "session resume missing": AGENT + ["session", "resume", "{missing}", "--leaf", "x", "t"],
    "session unknown verb": AGENT + ["session", "nope"],
    # python -m prefixlab ...
    "prefixlab unknown verb": ["-m", "prefixlab", "nope"],
    "bill missing": ["-m", "prefixlab", "bill", "{missing}"],
    "bill corrupt session": ["-m", "prefixlab", "bill", "{corrupt_jsonl}"],
    "bill binary": ["-m", "prefixlab", "bill", "{binary}"],
    "bill manifest path": ["-m", "prefixlab", "bill", "{rec}/manifest.json"],
    "bill corrupt recording": ["-m", "prefixlab", "bill", "{rec}"],
    "bill unknown rule": ["-m", "prefixlab", "bill", "{corrupt_jsonl}", "--model", "gpt-4o", "--rule", "nope"],
    "bill unknown model": ["-m", "prefixlab", "bill", str(REPO / "data/recordings/a5-4-summary-call-smollm2-llamacpp"),
                           "--model", "no-such-model"],
    "report missing": ["-m", "prefixlab", "report", "{missing}"],
    "report corrupt recording": ["-m", "prefixlab", "report", "{rec}"],
    "verify missing": ["-m", "prefixlab", "verify", "{missing}"],
    "verify corrupt recording": ["-m", "prefixlab", "verify", "{rec}"],
    "compare missing": ["-m", "prefixlab", "compare", "{missing}", "{missing}"],
    "compare corrupt": ["-m", "prefixlab", "compare", "{rec}", "{rec}"],
    "record unknown experiment": ["-m", "prefixlab", "record", "no-such-experiment"],
    "gguf-tokenizer missing": ["-m", "prefixlab", "gguf-tokenizer", "{missing}", "{dir}/out"],
    "gguf-tokenizer corrupt": ["-m", "prefixlab", "gguf-tokenizer", "{corrupt_json}", "{dir}/out"],
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_input_is_one_clear_line_and_a_non_zero_exit(case, files, tmp_path):
    argv = [a.format(**files) for a in CASES[case]]
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, *argv], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0, (case, done.stdout[-500:], done.stderr[-500:])
    assert "Traceback" not in done.stderr, (case, done.stderr[-2000:])
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1, (case, done.stderr[-2000:])
