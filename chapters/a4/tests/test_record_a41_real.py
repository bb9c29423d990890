"""Record a short A4-1 sweep on the real llama-server and check it token by token (lesson A4·1).

The unchanged prompt twice, then one probe that changes a word of the task (late in the prompt,
so the slot, not the host cache, decides the restore): the resend reads all but one token, the
probe reads exactly p, the restore reads p again, and the llama.cpp rule predicts every request.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from chapters.a4.experiments.one_token import WORD, Change, OneTokenRecorder, PromptTokens, measured
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


def short_sweep(recorder):
    base = recorder.base_prompt()
    ids = PromptTokens()
    word = next(WORD.finditer(base.task))
    change = measured(base, Change("task", word.start(), word.group(), 0), ids)
    recorder.manifest["sweep"] = {"prompt_tokens": len(ids(base)), "changes": [change.info()]}
    recorder.send("base-1", base, {"probe": {"role": "cold"}})
    recorder.send("base-2", base, {"probe": {"role": "resend"}})
    recorder.send_probe(base, change, ids)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a4-1-short", OneTokenRecorder, short_sweep)


def test_prompt_tokens_equal_the_offline_count(recorded):
    assert len(recorded.calls) == 4
    assert check(recorded, load_tokenizer()) == []


def test_resend_reads_n_minus_1_and_the_probe_reads_p(recorded):
    n = recorded.manifest["sweep"]["prompt_tokens"]
    p = recorded.manifest["sweep"]["changes"][0]["position"]
    measured_reads = [c.cached_tokens for c in recorded.calls]
    assert measured_reads == [0, n - 1, p, p]


def test_the_llamacpp_rule_predicts_every_request(recorded):
    rows = calculator.analyze(recorded)
    assert [(r.read, r.measured) for r in rows if r.read != r.measured] == []
