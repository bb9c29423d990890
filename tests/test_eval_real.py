"""A short real-server slice of A9's evaluation: one task, one seed, the live model, a few requests.

Runs only with PREFIXLAB_REAL_SERVER=1 and the live model in the cache; hold the server lock
(``flock /tmp/prefixlab-server.lock``). The harness starts the course's llama-server itself
(``python -m prefixlab eval`` without ``--url``), writes one result row, and the calculator predicts
every ``cached_tokens`` the server reported.
"""
import json
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.eval import cli
from prefixlab.eval.harness import RESULT_KEYS, read_results
from prefixlab.serving.models import LIVE, model_file
from prefixlab.serving.server import cache_dir

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                       reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server"),
    pytest.mark.skipif(not model_file(LIVE, cache_dir()).is_file(),
                       reason="the live model is not fetched (python -m prefixlab server fetch --model live)"),
]


def test_one_live_run_is_a_row_and_every_cached_count_is_predicted(tmp_path):
    out = tmp_path / "a9-slice"
    assert cli.main([str(out), "--tasks", "rounding", "--designs", "text", "--seeds", "1",
                     "--max-rounds", "3", "--max-tokens", "96"]) == 0
    row, = read_results(out)
    assert list(row) == list(RESULT_KEYS) and 1 <= row["requests"] <= 6
    assert isinstance(row["passed"], bool) and row["why"]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "complete" and len(manifest["order"]) == row["requests"]
    rows = calculator.analyze(calculator.prepare(out), "llamacpp")
    assert [(r.read, r.measured) for r in rows if not r.ok] == []
    assert sum(r.measured for r in rows) == row["cached_tokens"]
