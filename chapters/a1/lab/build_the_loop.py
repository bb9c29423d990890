"""The helpers of the lab labs/a1/build-the-loop.ipynb: a model to talk to, a workspace, a checker.

The lab builds the loop step by step and runs it against the course's llama-server. The assistant
turns come from A1's script (``data/a1/script.yml``, SmolLM2-135M cannot drive the task itself):
every request still goes to the server, which answers with its real token counts. When no server
answers, the lab says so and falls back to the recording ``a1-loop-smollm2-llamacpp``: the same
requests get the responses the server gave when the recording was made.

    model = course_model()                  # the server at SERVER_URL, or the recording
    toolbox, repo = fresh_toolbox()         # the four tools on a fresh copy of the toy repository
    check_loop(my_loop)                     # runs the reader's loop(messages, model, toolbox, max_rounds)
    RoundsApp(rounds)                       # ipywidgets: a slider over the requests of a run
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import httpx2 as httpx

from miniagent.model import ChatModel, ModelReply
from prefixlab.presenting.lab.app import WidgetApp, panel
from miniagent.tools import Toolbox, Workspace
from prefixlab.paths import TOY_REPO
from prefixlab.recording.format import load
from prefixlab.recording.policy import load_script, scripted_message

from chapters.a1.agent import four_tools
from chapters.a1.paths import A1_RECORDING, A1_SCRIPT

DEFAULT_URL = os.environ.get("PREFIXLAB_SERVER_URL", "http://127.0.0.1:8080")
SCRIPT = load_script(A1_SCRIPT)


def server_answers(url: str, timeout: float = 2.0) -> bool:
    """True if an OpenAI-compatible server answers at ``url`` (llama-server's /health)."""
    try:
        return httpx.get(url.rstrip("/") + "/health", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


class ScriptedTurns:
    """Sends each request to a real server; the assistant message is the script's next turn."""

    source = "server"

    def __init__(self, chat: ChatModel, turns: list[dict]):
        self.chat, self.turns, self.sent = chat, list(turns), 0

    def complete(self, messages, tools=None, **params) -> ModelReply:
        if not self.turns:
            raise RuntimeError("脚本里的回答用完了:循环没有在模型给出最终回答时停下来?")
        self.sent += 1
        reply = self.chat.complete(messages, tools, max_tokens=1, temperature=0, **params)
        return ModelReply(scripted_message(self.turns.pop(0), f"call_loop_{self.sent}"), reply.request,
                          reply.response)


class RecordedTurns:
    """No server: answers request i with the response recorded for request i of the ``loop`` session,
    and the script's turn. It checks that the request is the recorded one, so a loop that sends
    something else hears about it."""

    source = "recording"

    def __init__(self, turns: list[dict]):
        rec = load(A1_RECORDING)
        self.calls, self.turns, self.sent = rec.session_calls("loop"), list(turns), 0

    def complete(self, messages, tools=None, **params) -> ModelReply:
        if self.sent >= len(self.calls) or not self.turns:
            raise RuntimeError("录制里的请求用完了:循环没有在模型回答时停下来?")
        call = self.calls[self.sent]
        self.sent += 1
        if messages != call.request["messages"]:
            raise RuntimeError(f"第 {self.sent} 个请求和录制里的不一样(消息 {len(messages)} 条,录制里 "
                               f"{len(call.request['messages'])} 条):离线时只能重放录制过的那一串请求")
        return ModelReply(scripted_message(self.turns.pop(0), f"call_loop_{self.sent}"), call.request, call.response)


def course_model(url: str | None = None, turns: list[dict] | None = None):
    """The script's turns against the server at ``url``; the recording when none answers (and says so)."""
    url = url or DEFAULT_URL
    turns = SCRIPT["loop"] if turns is None else turns
    if server_answers(url):
        print(f"服务器 {url} 在线:每个请求都真的发给它,数字是它这一次报告的。")
        return ScriptedTurns(ChatModel(url.rstrip("/") + "/v1", progress=None, max_retries=0), turns)
    print(f"没有找到在 {url} 运行的服务器,下面改用录制 data/recordings/{A1_RECORDING.name} 里服务器当时的回答"
          "(请求照样由你的循环拼出来,并和录制逐条核对)。\n"
          "想连真的服务器:在终端里运行 make server(或 python -m prefixlab server start),再重新运行这个单元格;"
          "别的地址用 course_model(\"http://主机:端口\")。")
    return RecordedTurns(turns)


def fresh_toolbox() -> tuple[Toolbox, Path]:
    """The four tools of chapter A1 on a fresh copy of the toy repository (in a temporary folder).

    ``python`` in the script's commands must be this kernel's Python (the course's, as in the
    recording), not whatever else is first on PATH: its directory goes first on PATH.
    """
    here = str(Path(sys.executable).parent)
    if os.environ.get("PATH", "").split(os.pathsep)[0] != here:
        os.environ["PATH"] = os.pathsep.join([here, os.environ.get("PATH", "")])
    root = Path(tempfile.mkdtemp(prefix="a1-lab-")) / "repo"
    shutil.copytree(TOY_REPO, root)
    return four_tools(Workspace(root)), root


def first_request() -> list[dict]:
    """The conversation of the first round: the system prompt and the task."""
    return [{"role": "system", "content": SCRIPT["system"]}, {"role": "user", "content": SCRIPT["task"]}]


# -- the checker of the reader's loop ----------------------------------------------------------

class _StandIn:
    """A stand-in model for the checker: replies from a list, keeps a copy of every request."""

    def __init__(self, replies: list[dict]):
        self.replies, self.requests = list(replies), []

    def complete(self, messages, tools=None, **params) -> ModelReply:
        self.requests.append(copy.deepcopy(messages))
        if not self.replies:
            raise RuntimeError("stand-in model: no reply left")
        return ModelReply(self.replies.pop(0), {}, {"usage": {"prompt_tokens": 0}})


class _Echo:
    definitions = [{"type": "function", "function": {"name": "echo", "parameters": {"type": "object"}}}]

    def call(self, name, arguments):
        return f"echo {name} {arguments}"


def _call(call_id: str) -> dict:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": "echo", "arguments": json.dumps({"n": call_id})}}]}


def check_loop(loop) -> str:
    """Run ``loop(messages, model, toolbox, max_rounds)`` against a stand-in model; say what is wrong, in Chinese."""
    model = _StandIn([_call("a"), _call("b"), {"role": "assistant", "content": "done"}])
    try:
        answer = loop([{"role": "user", "content": "say hi"}], model, _Echo(), 5)
    except Exception as err:  # the reader's code: report, do not crash the lab
        return f"还不对:循环抛出了 {type(err).__name__}: {err}"
    if len(model.requests) != 3:
        return f"还不对:模型要了两次工具、第三次才回答,应该正好发 3 个请求,你的循环发了 {len(model.requests)} 个。"
    second = model.requests[1]
    if [m.get("role") for m in second[-2:]] != ["assistant", "tool"]:
        return "还不对:第 2 个请求的末尾应该是模型上一轮的回答(assistant),然后是工具的结果(tool)。"
    if second[-1].get("tool_call_id") != "a" or second[-1].get("content") != 'echo echo {"n": "a"}':
        return "还不对:工具结果那条消息要带上 tool_call_id(对上是哪一次调用),content 是工具返回的文字。"
    if answer != "done":
        return f"还不对:模型不再要工具时,它的回答就是结果;你的循环返回了 {answer!r}。"
    runaway = _StandIn([_call(f"c{i}") for i in range(10)])
    try:
        loop([{"role": "user", "content": "say hi"}], runaway, _Echo(), 3)
    except Exception as err:
        return f"还不对:模型一直要工具时,循环应该在 max_rounds 轮之后停下,而不是抛出 {type(err).__name__}: {err}"
    if len(runaway.requests) != 3:
        return f"还不对:max_rounds = 3 时最多发 3 个请求,你的循环发了 {len(runaway.requests)} 个。"
    return "对:三个请求、工具结果接在末尾、回答即结果、到轮数上限就停。这就是 miniagent 的 run_task 的骨架。"


# -- the widget: the requests of a run, round by round -------------------------------------------

def describe_request(round_no: int, n_messages: int, usage: dict, request: dict) -> str:
    """One request as text: its messages (role and the start of the content) and its prompt size."""
    lines = [f"第 {round_no} 轮:{n_messages} 条消息,prompt {usage['prompt_tokens']} token"]
    for m in request["messages"]:
        text = m.get("content") or ", ".join(c["function"]["name"] for c in m.get("tool_calls", []))
        lines.append(f"  {m['role']:9s} {' '.join(str(text).split())[:90]}")
    return "\n".join(lines)


class RoundsApp(WidgetApp):
    """A slider over the rounds of a run (a list of (messages, usage, request)); shows each request."""

    TITLE = "逐轮看请求"

    def __init__(self, rounds: list[tuple[int, dict, dict]]):
        import ipywidgets as widgets

        self.rounds = rounds
        # It opens on the last round: the longest request, and every earlier one a step to the left.
        self.slider = widgets.IntSlider(min=1, max=len(rounds), value=len(rounds), description="轮")
        self.view = widgets.HTML(self.html(len(rounds)))
        self.slider.observe(lambda change: setattr(self.view, "value", self.html(change["new"])), names="value")
        self.widget = widgets.VBox([self.slider, self.view])

    def html(self, round_no: int) -> str:
        return panel(describe_request(round_no, *self.rounds[round_no - 1]))
