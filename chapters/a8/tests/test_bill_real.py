"""The bill on the real llama-server: a short run that a token budget stops, billed from its session file.

A scripted policy keeps reading the toy repository's README; ``Limits(max_tokens=...)`` stops the run
before the request that would go over the budget. The bill must hold every request the server answered,
to the token of each response's ``usage``; the ``stopped`` entry must count what the bill counts; the
server's ``timings`` must split each prompt the way ``usage`` does. Well under a minute on an idle machine.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import json
import os
import shutil

import pytest

from miniagent.loop import Limits, run_task
from miniagent.memory import MemoryStore
from miniagent.model import ChatModel
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace
from prefixlab.paths import TOY_REPO
from prefixlab.presenting import bill
from prefixlab.recording.policy import ScriptedPolicy, monotonic_clock

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]

BUDGET = 2_500  # tokens (prompt + completion): the first requests fit, a later one would not
TURN = {"tool": "read_file", "args": {"path": "README.md"}}


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    from prefixlab.serving.server import LlamaServer, free_port

    tmp = tmp_path_factory.mktemp("bill-real")
    workspace = shutil.copytree(TOY_REPO, tmp / "repo")
    session_path = tmp / "budget.jsonl"
    with LlamaServer(port=free_port()) as server:
        model = ChatModel(server.openai_base_url, progress=None)
        policy = ScriptedPolicy(model, [TURN] * 20, "call_budget", monotonic_clock())
        answer = run_task("Read the README until you know the project.", model=policy,
                          toolbox=Toolbox(Workspace(workspace), MemoryStore(tmp / "MEMORY.md")),
                          session=Session.open(session_path), limits=Limits(max_rounds=20, max_tokens=BUDGET))
    return answer, session_path


def test_the_budget_stops_the_run_cleanly_and_the_bill_holds_every_request(stopped_run):
    answer, path = stopped_run
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert answer == "" and entries[-1]["type"] == "stopped" and "budget" in entries[-1]["reason"]
    calls = [e for e in entries if e["type"] == "model_call"]
    assert len(calls) >= 2
    b = bill.bill(path)
    (root,) = b.roots
    usage = [c["response"]["usage"] for c in calls]
    assert b.total.calls == len(calls)
    assert b.total.prompt == sum(u["prompt_tokens"] for u in usage)
    assert b.total.cache_read == sum(u["prompt_tokens_details"]["cached_tokens"] for u in usage)
    assert b.total.output == sum(u["completion_tokens"] for u in usage)
    # the limit counted what the bill counts, and stopped before going over
    (stop,) = root.stops
    assert stop["tokens"] == b.total.prompt + b.total.output
    assert b.total.prompt + b.total.output - (usage[-1]["prompt_tokens"] + usage[-1]["completion_tokens"]) < BUDGET
    # the server's own timings split every prompt as its usage does, and took real time
    for line, call in zip(b.lines(), calls):
        assert (line.usage.cache_read, line.usage.input) == (call["response"]["timings"]["cache_n"],
                                                             call["response"]["timings"]["prompt_n"])
    assert b.seconds()[0] > 0
    assert "stopped by a limit" in bill.render(b)
