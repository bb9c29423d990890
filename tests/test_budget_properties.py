"""The token budget as an invariant, checked over random sequences of calls (hypothesis).

Whatever the server reports, and however many correction retries the task makes (call_retry.py):
no model call starts once the calls the task caused have used the budget, and a call whose usage
cannot be counted is the last one of a task with a budget."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from miniagent.call_retry import run_with_retry
from miniagent.loop import Limits
from miniagent.model import ModelReply
from miniagent.reply import reported_tokens
from miniagent.session import Session

GOOD_USAGE = st.builds(lambda p, c: {"prompt_tokens": p, "completion_tokens": c},
                       st.integers(0, 60), st.integers(0, 20))
BAD_USAGE = st.sampled_from([None, {}, {"prompt_tokens": "5", "completion_tokens": 1},
                             {"prompt_tokens": -3, "completion_tokens": 1}, [1, 2],
                             {"prompt_tokens": 2.5, "completion_tokens": 0}])
# One answer: a tool call, an unreadable call (a retry follows), or a final answer; and its usage.
ANSWER = st.tuples(st.sampled_from(["call", "unreadable", "final"]),
                   st.one_of(GOOD_USAGE, GOOD_USAGE, GOOD_USAGE, BAD_USAGE))


class Scripted:
    def __init__(self, answers):
        self.answers = list(answers)

    def complete(self, messages, tools=None, **params):
        kind, usage = self.answers.pop(0) if self.answers else ("final", {"prompt_tokens": 1, "completion_tokens": 1})
        message = {"role": "assistant", "content": "done"}
        if kind == "call":
            message = {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "noop", "arguments": "{}"}}]}
        elif kind == "unreadable":
            message = {"role": "assistant", "content": '<tool_call>{"name": "noop", "arguments": {'}
        response = {"choices": [{"index": 0, "finish_reason": "stop", "message": message}]}
        if usage is not None:
            response["usage"] = usage
        return ModelReply(message, {"messages": messages}, response)


class NoTools:
    definitions = [{"type": "function", "function": {"name": "noop", "parameters": {"type": "object"}}}]

    def call(self, name, arguments):
        return "ok"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answers=st.lists(ANSWER, max_size=12), budget=st.integers(1, 200), retries=st.integers(0, 3))
def test_no_call_starts_once_the_budget_is_spent_or_cannot_be_counted(tmp_path_factory, answers, budget, retries):
    session = Session(tmp_path_factory.mktemp("s") / "s.jsonl")
    run_with_retry("task", max_retries=retries, model=Scripted(answers), toolbox=NoTools(), session=session,
                   limits=Limits(max_rounds=8, max_tokens=budget))
    spent = 0
    for entry in session.entries:
        if entry["type"] != "model_call":
            continue
        assert spent is not None, "a call was made after one whose usage could not be counted"
        assert spent < budget, f"a call started with {spent} of {budget} tokens spent"
        tokens = reported_tokens(entry["response"])
        spent = None if tokens is None else spent + tokens
    last = session.entries[-1]
    if last["type"] == "stopped" and "token budget" in last["reason"]:
        assert spent is None or spent >= budget
