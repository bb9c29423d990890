"""Record a short slice of A7·2 on the real llama-server (one slot, no host cache): the parent's first
rounds, one forked child, the parent's last rounds (8 requests, about half a minute).

Every request must re-tokenize to the server's count and be predicted exactly by the llama.cpp rule,
the child's included; the forked child's first request must read the parent's previous request
(all but the template's last tokens), and the child's session file must be linked to its entry.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from chapters.a7.experiments.delegation import SETUPS, ChildRecorder
from miniagent.children import child_entries, open_child
from miniagent.session import Session
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


def _fork_only(recorder):
    recorder.variants = ("fork",)
    recorder.record()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    make = lambda *args, **kwargs: ChildRecorder(*args, setup="one-slot", **kwargs)  # noqa: E731
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a7-2", make, _fork_only,
                                  extra_args=SETUPS["a7-2-child-one-slot"][1])


def test_every_request_retokenizes_to_the_servers_count(recorded):
    assert check(recorded, load_tokenizer()) == []


def test_every_count_is_predicted_exactly_and_the_fork_reads_the_parents_request(recorded):
    rows = calculator.analyze(recorded)
    assert rows and all(r.ok for r in rows)
    parent, child = recorded.session_calls("fork"), recorded.session_calls("fork-child1")
    assert len(child) == 2
    before = max((c for c in parent if c.seq < child[0].seq), key=lambda c: c.seq)
    assert before.prompt_tokens - 5 <= child[0].cached_tokens < before.prompt_tokens


def test_the_child_file_is_linked_to_the_parents_entry(recorded):
    session = Session.open(recorded.path / "fork.jsonl")
    [entry] = child_entries(session)
    assert entry["mode"] == "fork" and entry["status"] == "done" and entry["usage"]["calls"] == 2
    assert open_child(session, entry).entries[0]["parentSession"] == {"path": "fork.jsonl", "entryId": entry["id"]}
