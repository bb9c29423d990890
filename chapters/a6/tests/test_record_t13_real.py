"""Record T13's branch switching on the real llama-server and check it token by token (lesson A6·4).

Two branches of one session file take turns on a fresh server, under the two setups whose
patterns are new to the calculator: one slot with the host prompt cache (a switch saves the slot
and may load the other branch back from host memory) and two slots (the slot is picked by prompt
similarity). Every request must re-tokenize to the server's prompt_tokens and be predicted exactly
by the llama.cpp rule configured from the recorded flags.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from chapters.a6.experiments.session_tree import SETUPS, SwitchRecorder
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


@pytest.fixture(scope="module", params=["t13-switch-host-cache", "t13-switch-two-slots"])
def recorded(request, tmp_path_factory):
    setup, flags = SETUPS[request.param]
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / request.param,
                                  lambda *args, **kw: SwitchRecorder(*args, setup, **kw),
                                  lambda recorder: recorder.record(), extra_args=flags)


def test_every_request_retokenizes_to_the_servers_count(recorded):
    assert check(recorded, load_tokenizer()) == []


def test_every_cached_count_is_predicted_exactly(recorded):
    config = calculator.llamacpp_config(recorded)
    if recorded.manifest["setup"] == "two-slots":
        assert (config.n_slots, config.kv_unified) == (2, False)  # an explicit -np turns the unified KV off
    rows = calculator.analyze(recorded)
    assert [(r.seq, r.session, r.read) for r in rows] == [(r.seq, r.session, r.measured) for r in rows]
    # every switch keeps at least what the first one kept: the trunk both branches start with
    assert [r.session for r in rows[:3]] == ["trunk", "branch-a", "branch-b"]
    assert all(r.measured >= rows[2].measured for r in rows[3:])
