"""The oracle: a scripted policy that solves every task through miniagent's real loop and tools.

It stands where the model stands (``complete``), answers round by round with the task's ``oracle``
calls from task.yml (read the file, edit it, run the checks), then a final answer. No server is asked:
its requests are not sent anywhere, and their usage is zero. If the harness and the task set are right,
the oracle passes every task; a task it fails has a wrong check, a wrong bug, or a harness bug.
"""
from __future__ import annotations

import json

from miniagent.model import ModelReply

FINAL = "STATUS: done\n- fixed what the task describes\n- python tools/check.py passes"
NO_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0,
            "prompt_tokens_details": {"cached_tokens": 0}}


class OracleModel:
    """Answers with ``calls`` (``{"tool", "arguments"}``), one per round, then ``FINAL``."""

    def __init__(self, calls):
        self.calls, self.replies = list(calls), 0

    def complete(self, messages: list[dict], tools: list[dict] | None = None, **params) -> ModelReply:
        self.replies += 1
        if self.replies <= len(self.calls):
            call = self.calls[self.replies - 1]
            message = {"role": "assistant", "content": "", "tool_calls": [
                {"id": f"oracle_{self.replies}", "type": "function",
                 "function": {"name": call["tool"], "arguments": json.dumps(call["arguments"], ensure_ascii=False)}}]}
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": FINAL}, "stop"
        request = {"model": "oracle", "round": self.replies, "messages": len(messages)}
        response = {"model": "oracle", "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                    "usage": dict(NO_USAGE)}
        return ModelReply(message, request, response)
