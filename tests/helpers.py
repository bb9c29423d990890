"""Test helpers: a scripted stand-in for the model (never used as a result), and a steady clock for
the unittest runs that recorded tool outputs contain."""
from __future__ import annotations

import contextlib
import copy
import json
import os
import sys
import tempfile
from pathlib import Path

from miniagent.model import ModelReply


def tool_call(call_id: str, name: str, **arguments) -> dict:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def answer(text: str) -> dict:
    return {"role": "assistant", "content": text}


class ScriptedModel:
    """Replies with the given assistant messages in order and remembers what it was sent."""

    def __init__(self, turns):
        self.turns = list(turns)
        self.requests: list[list[dict]] = []

    def complete(self, messages, tools=None, **params):
        self.requests.append(copy.deepcopy(messages))
        body = {"messages": messages, "tools": tools}
        return ModelReply(self.turns.pop(0), body, {"usage": {"prompt_tokens": 0}})


PINNED_UNITTEST_CLOCK = """\
# Written by the tests for the Python processes a recorder's tools start: unittest's
# "Ran N tests in X.XXXs" reads 0.000s, as in the recordings, however busy the machine is.
import time as _time
import types as _types
import unittest.runner as _runner

_clock = {k: getattr(_time, k) for k in dir(_time) if not k.startswith("__")}
_runner.time = _types.SimpleNamespace(**{**_clock, "perf_counter": lambda: 0.0})
"""


@contextlib.contextmanager
def pinned_unittest_clock():
    """While recording against a fake server: ``python`` in a tool call is this Python, and its
    unittest clock reads 0, so a tool's output (and the request that carries it) does not depend
    on how busy the machine is. Environment restored afterwards."""
    saved = {key: os.environ.get(key) for key in ("PYTHONPATH", "PATH")}
    with tempfile.TemporaryDirectory() as site:
        Path(site, "sitecustomize.py").write_text(PINNED_UNITTEST_CLOCK, encoding="utf-8")
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [site, saved["PYTHONPATH"]]))
        os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), saved["PATH"] or ""])
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
