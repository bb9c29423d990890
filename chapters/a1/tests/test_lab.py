"""The lab's helpers (labs/a1/build-the-loop.ipynb): the fallback to the recording when no server
answers, and the checker of the reader's loop."""
import pytest

from chapters.a1.lab.build_the_loop import (RecordedTurns, RoundsApp, check_loop, course_model, first_request,
                                            fresh_toolbox, server_answers)


def good_loop(messages, model, toolbox, max_rounds):
    for _ in range(max_rounds):
        reply = model.complete(messages, toolbox.definitions)
        messages.append(reply.message)
        calls = reply.message.get("tool_calls") or []
        if not calls:
            return reply.message["content"]
        for call in calls:
            result = toolbox.call(call["function"]["name"], call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return ""


def no_tool_results(messages, model, toolbox, max_rounds):
    for _ in range(max_rounds):
        reply = model.complete(messages, toolbox.definitions)
        messages.append(reply.message)
        if not reply.message.get("tool_calls"):
            return reply.message["content"]
    return ""


def no_limit(messages, model, toolbox, max_rounds):
    return good_loop(messages, model, toolbox, 100)


def test_the_checker_accepts_a_right_loop_and_names_what_a_wrong_one_misses():
    assert check_loop(good_loop).startswith("对")
    assert "tool" in check_loop(no_tool_results) and check_loop(no_tool_results).startswith("还不对")
    assert "max_rounds" in check_loop(no_limit)
    assert "抛出了" in check_loop(lambda *args: 1 / 0)


def test_without_a_server_the_lab_says_so_and_replays_the_recording(capsys):
    assert not server_answers("http://127.0.0.1:9", timeout=0.5)
    model = course_model("http://127.0.0.1:9")
    assert isinstance(model, RecordedTurns)
    assert "没有找到" in capsys.readouterr().out
    toolbox, repo = fresh_toolbox()
    assert good_loop(first_request(), model, toolbox, 10).startswith("All five checks pass")
    assert "-?" in (repo / "units" / "convert.py").read_text()


def test_the_recorded_fallback_refuses_a_request_it_never_saw():
    model = course_model("http://127.0.0.1:9")
    with pytest.raises(RuntimeError, match="不一样"):
        model.complete([{"role": "user", "content": "something else"}])


def test_the_rounds_app_shows_each_request():
    model = course_model("http://127.0.0.1:9")
    toolbox, _ = fresh_toolbox()
    rounds = []

    class Watching:
        def complete(self, messages, tools=None, **params):
            reply = model.complete(messages, tools, **params)
            rounds.append((len(messages), reply.response["usage"], reply.request))
            return reply

    good_loop(first_request(), Watching(), toolbox, 10)
    app = RoundsApp(rounds)
    assert f"第 {len(rounds)} 轮:{2 * len(rounds)} 条消息" in app.view.value
    app.slider.value = 3
    assert "第 3 轮:6 条消息" in app.view.value
