"""Record a short A3-2 slice on the real llama-server (lesson A3·2): the ``ask-deny`` session alone.

The human says no to the edit: the call does not run, the model reads the refusal, and the request
that carries it reads the whole request before it from the cache; the llama.cpp rule predicts every
request. Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from chapters.a3.approvals import after_refusal
from chapters.a3.experiments.approval_policies import ApprovalRecorder
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


def deny_only(recorder):
    spec = next(s for s in recorder.script["sessions"] if s["id"] == "ask-deny")
    recorder.run_session(spec)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a3-2-short", ApprovalRecorder, deny_only)


def test_prompt_tokens_equal_the_offline_count(recorded):
    assert len(recorded.calls) == 5
    assert check(recorded, load_tokenizer()) == []


def test_the_denied_edit_did_not_run_and_the_prefix_holds(recorded):
    session = recorded.manifest["sessions"][0]
    assert session["asked"] == [{"tool": "edit_file", "answer": False}]
    row = after_refusal(recorded, "ask-deny")
    assert row.refusal_text == "error: the user did not approve this edit_file call; it did not run"
    assert row.read == row.previous_prompt


def test_the_llamacpp_rule_predicts_every_request(recorded):
    rows = calculator.analyze(recorded)
    assert [(r.read, r.measured) for r in rows if r.read != r.measured] == []
