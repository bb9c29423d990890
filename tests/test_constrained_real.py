"""--constrained on the real llama-server with the live model: the reply is a well-formed call or answer.

Runs only with PREFIXLAB_REAL_SERVER=1 and the live model in the cache (as tests in chapters/a1/tests);
one short request with one tool, a short slice of what chapter A2's recording measures at length.
"""
import os

import pytest

from miniagent.constrained import ConstrainedModel
from miniagent.model import ChatModel
from miniagent.tools import Toolbox, Workspace

from prefixlab.recording.live import SERVER_ARGS
from prefixlab.serving.models import LIVE, model_file
from prefixlab.serving.server import cache_dir, named_server

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                       reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server"),
    pytest.mark.skipif(not model_file(LIVE, cache_dir()).is_file(),
                       reason="the live model is not fetched (python -m prefixlab server fetch --model live)"),
]


def test_a_constrained_reply_of_the_live_model_is_a_call_of_the_offered_tool_or_an_answer(tmp_path):
    tools = [d for d in Toolbox(Workspace(tmp_path), memory=None).definitions if d["function"]["name"] == "list_files"]
    messages = [{"role": "system", "content": "You are a coding agent. Use the tools."},
                {"role": "user", "content": "Which files are in this repository?"}]
    with named_server("live", port=0, extra_args=SERVER_ARGS) as srv:
        model = ConstrainedModel(ChatModel(srv.openai_base_url, timeout=600, progress=None, max_tokens=48,
                                           temperature=0))
        reply = model.complete(messages, tools)
    assert reply.request["response_format"]["type"] == "json_schema"
    calls = reply.message.get("tool_calls")
    assert calls or reply.message["content"], reply.response  # a call, or the final answer's text
    if calls:
        assert [c["function"]["name"] for c in calls] == ["list_files"]
