"""Record a short slice of A5·3 on the real llama-server with the live model: one run of the free-form
variant, its three summaries cut short (16 tokens), sampled with the run's seed.

Every request must re-tokenize to the server's count and be predicted exactly by the llama.cpp rule;
the second and third summary calls must read the system prompt back from the cache (they start like
the first one, up to the summary).

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``) and the live model fetched
(``python -m prefixlab server fetch --model live``; CI does not download it).
"""
import os

import pytest

from chapters.a5.experiments.layered_summaries import LayersRecorder
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.format import load
from prefixlab.recording.live import SERVER_ARGS, TOKENIZER, live_provenance
from prefixlab.recording.verify import check
from prefixlab.serving.models import LIVE, model_file
from prefixlab.serving.server import cache_dir, free_port, named_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server"),
              pytest.mark.skipif(not model_file(LIVE, cache_dir()).is_file(),
                                 reason="the live model is not fetched (python -m prefixlab server fetch --model live)")]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("real") / "a5-3"
    with named_server("live", port=free_port(), extra_args=SERVER_ARGS) as server:
        recorder = LayersRecorder(out, lambda: server.openai_base_url, lambda epoch: epoch,
                                  live_provenance(server, "test_record_a5_3_real"), "local", log=lambda line: None)
        recorder.variants = ("free",)
        recorder.manifest["runs"] = recorder.manifest["fix_runs"] = 1
        recorder.script["summary_max_tokens"] = 16
        recorder.record()
    return load(out)


def test_every_request_retokenizes_to_the_servers_count(recorded):
    assert check(recorded, load_tokenizer(TOKENIZER)) == []


def test_every_summary_call_is_predicted_exactly_and_later_ones_read_the_system_prompt(recorded):
    rows = calculator.analyze(recorded)
    assert len(rows) == 3 and all(r.ok for r in rows)
    calls = recorded.session_calls("free-01")
    assert all(c.kind == "compaction" for c in calls)
    assert calls[1].cached_tokens > 0 and calls[2].cached_tokens > 0
