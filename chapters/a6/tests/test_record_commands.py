"""The command lines of chapter A6's experiments, offline: the new verb and the old module name record
the same thing, and each recording stores the command as it was typed (a fake server stands in)."""
import json

import pytest
from fake_server import FakeChatServer, completion
from helpers import pinned_unittest_clock

from prefixlab.recording import experiments as registry
from prefixlab.recording.format import load


def _reply(body):
    n = len(json.dumps(body["messages"])) // 4
    return 200, completion({"role": "assistant", "content": "x"}, prompt_tokens=n, cached=n - 10)


def record(tmp_path, run, name):
    out = tmp_path / name
    with pinned_unittest_clock(), FakeChatServer(_reply) as srv:
        options = ["--server-url", srv.url, "--model", "fake", "--no-counterfactuals", "--no-live"]
        assert run([str(out), *options]) == 0
        received = list(srv.received)
    return load(out), received


def test_the_verb_and_the_old_name_send_the_same_requests_and_store_their_own_command(tmp_path):
    from prefixlab import record_t10

    new, sent_new = record(tmp_path, lambda argv: registry.main(["a6-2", *argv]), "new")
    old, sent_old = record(tmp_path, record_t10.main, "old")
    assert sent_new == sent_old and sent_new
    assert new.manifest["experiment"] == old.manifest["experiment"] == "T10"
    assert new.provenance["recorder"]["command"].startswith(f"python -m prefixlab record a6-2 {tmp_path / 'new'} ")
    assert old.provenance["recorder"]["command"].startswith(f"python -m prefixlab.record_t10 {tmp_path / 'old'} ")


@pytest.mark.parametrize("name", sorted(registry.experiments()))
def test_each_experiment_s_command_refuses_to_overwrite_a_recording(name, tmp_path, capsys):
    exp = registry.get(name)
    taken = tmp_path / "taken"
    for inside in exp.recordings.values():
        (taken / inside).mkdir(parents=True, exist_ok=True)
    with pytest.raises(SystemExit):
        exp.main([str(taken)])
    assert "exists" in capsys.readouterr().err
