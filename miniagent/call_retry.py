"""A bounded retry of a tool call that could not be read (A2·1, opt-in).

A small model may mean to call a tool and write the call so that nobody can read it: the template's
``<tool_call>`` tags around JSON with a brace missing, say. The server parses no ``tool_calls`` out of
it, ``text_calls`` (if on) finds no whole call in it either, so the loop takes the reply for the
final answer and stops. ``run_with_retry`` sits outside the loop: when the answer the loop hands back
looks like an attempted call (``tried_to_call``), the same session goes on with a short correction as
the next user message, at most ``max_retries`` times; after that the text stands as the answer.
mini-swe-agent sends its format errors back the same way, and gives up after a few in a row.

Each retry is a new run of the loop (``run_task``) on the same session, as when a session is resumed
with a new message: the steps start again and the rounds count afresh, but the token budget goes
on counting (``Limits.tokens_before``): every token the task causes counts once against it.
Nothing here runs unless ``run_with_retry`` is called (``python -m miniagent --call-retries N``);
without it miniagent sends exactly what it always sent.
"""
from __future__ import annotations

import re
from dataclasses import replace

from .loop import run_task, stop
from .session import tokens_spent

# What the agent says after a reply that tried to call a tool and could not be read.
CORRECTION = ("Your last reply tried to call a tool, but the call could not be read: no tool was run. "
              "Call the tool again, with its name and its arguments as one JSON object.")
MAX_RETRIES = 1
# A reply that tried to call a tool: the template's tags, or a JSON object with a name and arguments.
_ATTEMPT = re.compile(r"<tool_call>|\"name\"\s*:\s*\"[^\"]+\"\s*,\s*\"arguments\"")


def tried_to_call(text: str) -> bool:
    """Whether an answer without ``tool_calls`` holds a call that could not be read (worth a retry)."""
    return bool(_ATTEMPT.search(text or ""))


def run_with_retry(task: str, correction: str = CORRECTION, *, max_retries: int = MAX_RETRIES,
                   **loop) -> tuple[str, int]:
    """``run_task(task, **loop)``; while its answer tried to call a tool and retries are left, go on in
    the same session with ``correction`` as the next user message. The answer and the retries made."""
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"max_retries must be a whole number, 0 or more, not {max_retries!r}")
    if not isinstance(correction, str) or not correction.strip():
        raise ValueError(f"the correction must be a message the model can read, not {correction!r}")
    session, first = loop["session"], len(loop["session"].entries)
    answer = run_task(task, **loop)
    retries = 0
    while retries < max_retries and tried_to_call(answer):
        retries += 1
        if loop.get("limits") is not None:  # the budget goes on where the last run left it
            spent = tokens_spent(session.entries[first:])  # the whole task so far
            if reason := replace(loop["limits"], tokens_before=0).over_budget(spent):
                stop(session, reason, 0, spent, loop.get("log", lambda line: None))
                return "", retries - 1
            loop["limits"] = replace(loop["limits"], tokens_before=spent or 0)  # no budget: nothing to count
        answer = run_task(correction, **loop)
    return answer, retries
