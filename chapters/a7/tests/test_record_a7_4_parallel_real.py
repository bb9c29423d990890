"""Record a short slice of A7·4's parallel half on the real llama-server (``-c 4096 -np 2``): the parent,
then two children at once (11 requests, well under a minute on an idle machine).

The server's log must match the recorded order one to one (the recorder checks it and stops
otherwise); every request must re-tokenize to the server's count and be predicted exactly by the
llama.cpp rule with its busy slots; the log gives every request its slot and times.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from chapters.a7.experiments.parallel import SETUPS, ParallelRecorder
from chapters.a7.figures.parallel import parallel_effect
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER
from prefixlab.recording.format import load
from prefixlab.recording.recorder import base_provenance, llama_server_provenance
from prefixlab.recording.verify import check

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    from prefixlab.serving.server import LlamaServer, free_port

    out = tmp_path_factory.mktemp("real") / "a7-4-parallel"
    setup, flags, _ = SETUPS["a7-4-parallel-two-slots"]
    with LlamaServer(port=free_port(), extra_args=flags) as server:
        provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER) | llama_server_provenance(server)
        recorder = ParallelRecorder(out, lambda: server.openai_base_url, lambda epoch: epoch, provenance, "local",
                                    setup=setup, variants=("parallel",), server=server, log=lambda line: None)
        recorder.record()
    return load(out)


def test_each_slot_holds_half_the_context(recorded):
    assert [s["n_ctx"] for s in recorded.provenance["server"]["slots"]] == [2048, 2048]


def test_every_request_retokenizes_and_is_predicted_exactly(recorded):
    assert check(recorded, load_tokenizer()) == []
    rows = calculator.analyze(recorded)
    assert len(rows) == 11 and all(r.ok for r in rows)


def test_the_server_log_gave_every_request_its_times_and_slot(recorded):
    effect = parallel_effect(recorded, "parallel")
    assert all(r.slot is not None and r.launched <= r.done for r in effect.rows)
    assert [r.role for r in effect.rows][2:4] == ["child1", "child2"]
