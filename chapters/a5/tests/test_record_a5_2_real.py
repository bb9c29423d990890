"""Record A5·2's session on the real llama-server with ``--cache-reuse 256`` and check it.

Old tool results are cut to their first line; the server shifts the rest of the old prompt into
place. Every request must re-tokenize to the server's count and be predicted exactly by the
llama.cpp rule, chunk reuse included.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from chapters.a5.experiments.tool_output_masking import SETUPS, MaskingRecorder
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]

SETUP, FLAGS = SETUPS["a5-2-masking-reuse256-smollm2-llamacpp"]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(
        tmp_path_factory.mktemp("real") / "a5-2", lambda *args, **kw: MaskingRecorder(*args, SETUP, **kw),
        lambda recorder: recorder.record(), extra_args=FLAGS)


def test_every_request_retokenizes_to_the_servers_count(recorded):
    assert check(recorded, load_tokenizer()) == []


def test_chunks_are_reused_and_every_cached_count_is_predicted_exactly(recorded):
    rows = calculator.analyze(recorded)
    assert [(r.seq, r.read) for r in rows] == [(r.seq, r.measured) for r in rows]
    reused = [r for r in rows if r.read > r.break_at]  # read past the first changed token: a shifted chunk
    assert reused and all(r.read - r.break_at >= 256 for r in reused)
