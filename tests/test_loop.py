import pytest

from miniagent.loop import run_task
from miniagent.modes import for_mode
from miniagent.memory import MemoryStore
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox, Workspace

from helpers import ScriptedModel, answer, tool_call

NOTE = "Run the tests with: python -m pytest -q tests"
DAY1 = [tool_call("c1", "list_files", path="."),
        tool_call("c2", "remember", note=NOTE),
        tool_call("c3", "read_file", path="app.py"),
        answer("done")]


def _day(tmp_path, mode, turns, session_name):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "app.py").write_text("print('hi')\n")
    memory = MemoryStore(tmp_path / "home" / "MEMORY.md")
    provider = for_mode(mode, "base", "Answer briefly.", memory)
    model = ScriptedModel(turns)
    session = Session.open(tmp_path / session_name)
    result = run_task("fix it", model=model, toolbox=Toolbox(Workspace(repo), memory),
                      session=session, steps=[provider])
    systems = [request[0]["content"] for request in model.requests]
    return result, systems, session


def _types(session):
    return [e["type"] for e in session.path_to()]


@pytest.mark.parametrize("mode", ["refresh", "frozen"])
def test_every_round_sends_the_providers_prompt(tmp_path, mode):
    result, systems, session = _day(tmp_path, mode, DAY1, "day1.jsonl")
    assert result == "done" and len(systems) == 4
    with_note = [NOTE in s for s in systems]
    if mode == "refresh":
        # Written during round 2's tool call, visible from round 3 on.
        assert with_note == [False, False, True, True]
        assert _types(session).count("system_refresh") == 1
    else:
        assert with_note == [False, False, False, False]
        assert "system_refresh" not in _types(session)
    assert _types(session)[:2] == ["system", "message"]
    # The write is on disk at once in both modes.
    assert MemoryStore(tmp_path / "home" / "MEMORY.md").entries() == [NOTE]


def test_the_refresh_entry_sits_right_before_the_round_that_uses_it(tmp_path):
    _, _, session = _day(tmp_path, "refresh", DAY1, "day1.jsonl")
    types = _types(session)
    i = types.index("system_refresh")
    assert types[i + 1] == "model_call" and session.path_to()[i + 1]["round"] == 3
    assert NOTE in session.path_to()[i]["content"]


def test_frozen_memory_reaches_the_prompt_in_the_next_session(tmp_path):
    _day(tmp_path, "frozen", DAY1, "day1.jsonl")
    _, systems, session = _day(tmp_path, "frozen", [answer("day 2 done")], "day2.jsonl")
    assert NOTE in systems[0]
    assert "system_refresh" not in _types(session)


def test_tool_results_are_in_the_next_request(tmp_path):
    _, _, session = _day(tmp_path, "frozen", DAY1, "day1.jsonl")
    tool_messages = [m for m in session.messages() if m["role"] == "tool"]
    assert tool_messages[0]["content"] == "app.py" and tool_messages[0]["tool_call_id"] == "c1"
    assert tool_messages[1]["content"].startswith("Saved to MEMORY.md")


def test_max_rounds_stops_a_model_that_never_answers(tmp_path):
    turns = [tool_call(f"c{i}", "list_files", path=".") for i in range(3)]
    repo = tmp_path / "repo"
    repo.mkdir()
    memory = MemoryStore(tmp_path / "MEMORY.md")
    lines = []
    result = run_task("loop", model=ScriptedModel(turns), toolbox=Toolbox(Workspace(repo), memory),
                      session=Session.open(tmp_path / "s.jsonl"),
                      steps=[for_mode("frozen", "b", "", memory)], max_rounds=3, log=lines.append)
    assert result == "" and lines[-1] == "stopped: no final answer after 3 rounds"


def test_a_tool_call_with_a_wrongly_typed_argument_gets_an_error_message_not_a_crash(tmp_path):
    turns = [tool_call("c1", "remember", note=5), answer("done")]
    result, _, session = _day(tmp_path, "refresh", turns, "s.jsonl")
    assert result == "done"
    tool_messages = [m for m in session.messages() if m["role"] == "tool"]
    assert tool_messages[0]["content"] == "error: bad arguments for remember: 'note' must be a string, not integer"
    assert MemoryStore(tmp_path / "home" / "MEMORY.md").entries() == []


# -- the narrow waist: a plain agent, and steps at the loop's edge ------------------------------

class Echo:
    """Two tools and nothing else: the loop needs only ``definitions`` and ``call``."""

    definitions = [{"type": "function", "function": {"name": "echo", "parameters": {"type": "object"}}}]

    def __init__(self):
        self.calls = []

    def call(self, name, arguments):
        self.calls.append((name, arguments))
        return f"echo {arguments}"


def test_a_plain_agent_with_no_steps_runs_the_tools_and_stops_at_the_answer(tmp_path):
    model, tools = ScriptedModel([tool_call("c1", "echo", text="hi"), answer("done")]), Echo()
    session = Session.open(tmp_path / "s.jsonl")
    assert run_task("say hi", model=model, toolbox=tools, session=session) == "done"
    assert tools.calls == [("echo", '{"text": "hi"}')]
    assert model.requests[0] == [{"role": "user", "content": "say hi"}]  # no step: no system message
    assert model.requests[1][-1] == {"role": "tool", "tool_call_id": "c1", "content": 'echo {"text": "hi"}'}
    assert _types(session) == ["message", "model_call", "message", "message", "model_call", "message"]


def test_a_plain_agent_s_system_prompt_is_a_fixed_step(tmp_path):
    model = ScriptedModel([tool_call("c1", "echo"), answer("done")])
    session = Session.open(tmp_path / "s.jsonl")
    run_task("go", model=model, toolbox=Echo(), session=session, steps=[FixedPrompt("You are a plain agent.")])
    assert [r[0] for r in model.requests] == [{"role": "system", "content": "You are a plain agent."}] * 2
    assert _types(session)[:2] == ["system", "message"] and "system_refresh" not in _types(session)


class Recording:
    """A step that notes when it runs, what it sees, and rewrites the task by appending its name."""

    def __init__(self, name, events):
        self.name, self.events = name, events

    def start(self, session, task):
        self.events.append((self.name, "start", task))
        return f"{task}+{self.name}"

    def before_call(self, session, round_no, log):
        self.events.append((self.name, round_no, len(session.messages())))
        log(f"{self.name} before round {round_no}")


def test_steps_start_in_order_then_run_in_order_before_every_call(tmp_path):
    events, lines = [], []
    model = ScriptedModel([tool_call("c1", "echo"), tool_call("c2", "echo"), answer("done")])
    run_task("task", model=model, toolbox=Echo(), session=Session.open(tmp_path / "s.jsonl"),
             steps=[Recording("a", events), Recording("b", events)], log=lines.append)
    # start: each step gets the text the one before it returned; the result is the user message
    assert events[:2] == [("a", "start", "task"), ("b", "start", "task+a")]
    assert model.requests[0] == [{"role": "user", "content": "task+a+b"}]
    # before every call, in the order given, each seeing the conversation as it is then
    assert events[2:] == [("a", 1, 1), ("b", 1, 1), ("a", 2, 3), ("b", 2, 3), ("a", 3, 5), ("b", 3, 5)]
    assert [line for line in lines if "before" in line] == [f"{s} before round {r}" for r in (1, 2, 3) for s in "ab"]


def test_a_step_s_change_is_in_the_very_next_request(tmp_path):
    class Nudge:
        def start(self, session, task):
            return task

        def before_call(self, session, round_no, log):
            if round_no == 2:
                session.append("message", message={"role": "user", "content": "hurry up"})

    model = ScriptedModel([tool_call("c1", "echo"), answer("done")])
    run_task("go", model=model, toolbox=Echo(), session=Session.open(tmp_path / "s.jsonl"), steps=[Nudge()])
    assert model.requests[1][-1] == {"role": "user", "content": "hurry up"}


# -- limits: a run that never answers stops cleanly, and says why ------------------------------

class Usage(ScriptedModel):
    """A scripted model whose every reply reports ``prompt`` prompt tokens and one completion token."""

    def __init__(self, turns, prompt=100):
        super().__init__(turns)
        self.prompt = prompt

    def complete(self, messages, tools=None, **params):
        reply = super().complete(messages, tools, **params)
        reply.response["usage"] = {"prompt_tokens": self.prompt, "completion_tokens": 1}
        return reply


class Clock:
    """A clock a test moves by hand: the time limit is tested without waiting."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _forever(n=50):
    return [tool_call(f"c{i}", "echo", text="again") for i in range(n)]


def _stopped(session):
    return [e for e in session.entries if e["type"] == "stopped"]


def test_max_rounds_stops_cleanly_and_the_session_says_why(tmp_path):
    from miniagent.loop import Limits

    session, lines = Session.open(tmp_path / "s.jsonl"), []
    result = run_task("loop", model=Usage(_forever()), toolbox=Echo(), session=session,
                      limits=Limits(max_rounds=4), log=lines.append)
    assert result == "" and lines[-1] == "stopped: no final answer after 4 rounds"
    assert [e["round"] for e in session.entries if e["type"] == "model_call"] == [1, 2, 3, 4]
    (stop,) = _stopped(session)
    assert stop == {**stop, "reason": "no final answer after 4 rounds", "rounds": 4, "tokens": 404}
    assert session.leaf == stop["id"]
    # Nothing lost: the file holds every entry, and the last tool result is still in the conversation.
    assert Session.open(tmp_path / "s.jsonl").entries == session.entries
    assert session.messages()[-1]["role"] == "tool"


def test_the_token_budget_stops_before_the_call_that_would_go_over_it(tmp_path):
    from miniagent.loop import Limits

    session = Session.open(tmp_path / "s.jsonl")
    run_task("loop", model=Usage(_forever(), prompt=300), toolbox=Echo(), session=session,
             limits=Limits(max_tokens=1000))
    (stop,) = _stopped(session)
    # 301 tokens a call: after 4 calls 1204 >= 1000, so there is no fifth.
    assert stop["rounds"] == 4 and stop["tokens"] == 1204
    assert stop["reason"] == "token budget spent: 1204 tokens used, the budget is 1000"


def test_the_time_limit_uses_the_injected_clock(tmp_path):
    from miniagent.loop import Limits

    clock = Clock()

    class Slow(Usage):
        def complete(self, messages, tools=None, **params):
            clock.now += 7.5  # every call "takes" 7.5 s on the test's clock
            return super().complete(messages, tools, **params)

    session = Session.open(tmp_path / "s.jsonl")
    run_task("loop", model=Slow(_forever()), toolbox=Echo(), session=session,
             limits=Limits(max_seconds=20, clock=clock))
    (stop,) = _stopped(session)
    assert stop["rounds"] == 3 and stop["reason"] == "time limit reached: 22.5 s used, the limit is 20 s"


def test_a_model_that_answers_in_time_leaves_no_stopped_entry(tmp_path):
    from miniagent.loop import Limits

    session = Session.open(tmp_path / "s.jsonl")
    result = run_task("say hi", model=Usage([tool_call("c1", "echo"), answer("done")]), toolbox=Echo(),
                      session=session, limits=Limits(max_rounds=2, max_tokens=500, max_seconds=60))
    assert result == "done" and _stopped(session) == []


@pytest.mark.parametrize("bad", [{"max_rounds": 0}, {"max_rounds": 2.5}, {"max_rounds": True},
                                 {"max_tokens": -1}, {"max_tokens": "100"}, {"max_seconds": 0},
                                 {"max_seconds": float("nan")}, {"max_seconds": float("inf")}])
def test_a_bad_limit_is_refused_with_its_name(bad):
    from miniagent.loop import Limits

    with pytest.raises(ValueError, match=next(iter(bad))):
        Limits(**bad)
