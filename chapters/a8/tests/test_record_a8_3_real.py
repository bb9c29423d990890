"""Record a short slice of A8·3 on the real llama-server (-c 4096 -np 1): the budget variant only (the
whole task's first requests, with the skills index, the memory and the spawn_agent tool in every request,
until the token budget stops it).

Every request must re-tokenize to the server's count and be predicted exactly by the llama.cpp rule;
the stop must count what the bill counts.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from chapters.a8.experiments.whole_task import SERVER_ARGS, WholeTaskRecorder
from miniagent.loop import Limits
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.presenting import bill
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


def _budget_only(recorder):
    s = recorder.script
    recorder.run("budget", Limits(max_rounds=len(s["parent"]), max_tokens=s["budget"]))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a8-3", WholeTaskRecorder, _budget_only,
                                  extra_args=SERVER_ARGS)


def test_every_request_retokenizes_and_is_predicted_exactly(recorded):
    assert check(recorded, load_tokenizer()) == []
    assert all(r.ok for r in calculator.analyze(recorded))


def test_the_budget_stops_the_slice_and_the_bill_agrees(recorded):
    (root,) = bill.bill(recorded.path / "budget.jsonl").roots
    (stop,) = root.stops
    assert "budget" in stop["reason"] and stop["tokens"] == root.total.prompt + root.total.output
    assert root.total.calls == len(recorded.calls) >= 2
