"""A7's lab: send a child agent yourself, offline, and look at the files it leaves.

``ChildLab`` runs miniagent for real -- the loop, the tools on a fresh copy of the chapter's
repository, the spawn_agent tool -- against a *pretend* model that answers from a short script (no
server: what matters here is what the agent writes, not what a model would say). The parent reads
a file, spawns one child with your brief, mode and limits, then answers. The child reads
``child_reads`` plugins before it answers; give it fewer rounds than that and a limit stops it.

``ChildApp`` is the ipywidgets layer for labs/a7/children.ipynb; ``ChildLab`` is plain state for tests.
"""
from __future__ import annotations

import html
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from miniagent.children import ChildLimits, add_children, child_entries, open_child
from miniagent.loop import Limits, run_task
from miniagent.memory import MemoryStore
from miniagent.model import ModelReply
from miniagent.session import Session, usage_ledger
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox, Workspace

from chapters.a7.paths import REPO_OVERLAY
from prefixlab.paths import TOY_REPO
from prefixlab.recording.repository import Repository

SYSTEM = "You are a coding agent working in a small repository."
TASK = "Find which plugins handle the export event."


class PretendModel:
    """Answers from a list of assistant messages; reports usage as 4 characters = 1 token (an estimate)."""

    def __init__(self, turns: list[dict]):
        self.turns = list(turns)

    def complete(self, messages, tools=None, **params):
        if not self.turns:
            raise RuntimeError("the pretend model has no scripted turn left")
        prompt = len(json.dumps([messages, tools], ensure_ascii=False)) // 4
        usage = {"prompt_tokens": prompt, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 0}}
        return ModelReply(self.turns.pop(0), {"messages": messages, "tools": tools}, {"usage": usage})


def call(call_id: str, name: str, **args) -> dict:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


@dataclass
class Run:
    """What one run left behind."""
    folder: Path
    parent: Session
    child_entry: dict | None
    child: Session | None
    tool_result: str
    first_child_request: list[dict]

    def describe(self) -> str:
        lines = [f"父会话文件:{self.parent.path.name}({len(self.parent.entries)} 个条目)"]
        if self.child_entry is None:
            lines.append(f"没有派出子 agent;spawn_agent 的结果:{self.tool_result}")
            return "\n".join(lines)
        e = self.child_entry
        lines += [f"子会话文件:{e['path']}({len(self.child.entries)} 个条目)",
                  f"child 条目:mode={e['mode']} status={e['status']} 用量={json.dumps(e['usage'])}",
                  f"子会话第一个条目的 parentSession:{json.dumps(self.child.entries[0]['parentSession'])}",
                  "子 agent 第一个请求的消息:" + ",".join(f"{m['role']}({len(m.get('content') or '')} 字符)"
                                                      for m in self.first_child_request),
                  f"父 agent 收到的工具结果:{self.tool_result}",
                  f"父会话账本(含子 agent):{json.dumps(usage_ledger(self.parent.entries))}"]
        return "\n".join(lines).replace(e["id"], "<id>")  # the id is random: shown as <id>


class ChildLab:
    """Runs a parent that spawns one child, in a fresh temporary folder each time."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="a7-lab-"))
        self.runs = 0

    def run(self, goal: str, context: str, output: str, mode: str = "fresh", max_rounds: int = 10,
            child_reads: int = 3, depth: int = 1) -> Run:
        self.runs += 1
        folder = self.root / f"run{self.runs}"
        repo = Repository(TOY_REPO, (REPO_OVERLAY,)).copy_to(folder / "repo")
        toolbox = Toolbox(Workspace(repo), MemoryStore(folder / "home" / "MEMORY.md"))
        session = Session.open(folder / "parent.jsonl")
        plugins = sorted(p.name for p in (repo / "plugins").glob("*.py") if p.name != "__init__.py")
        child_turns = [call(f"c{i}", "read_file", path=f"plugins/{name}") for i, name in enumerate(plugins[:child_reads])]
        child_turns.append({"role": "assistant", "content": "plugins/csvout.py - celsius (and others)"})

        def model_for(number, child_mode):
            return PretendModel(child_turns)

        agents = add_children(toolbox, session, model_for,
                              limits=ChildLimits(depth=depth, limits=Limits(max_rounds=max_rounds)))
        brief = {"goal": goal, "context": context, "output": output, "mode": mode}
        parent = PretendModel([call("p1", "list_files", path="plugins"), call("p2", "spawn_agent", **brief),
                               {"role": "assistant", "content": "done"}])
        run_task(TASK, model=parent, toolbox=agents.toolbox, session=session, steps=[FixedPrompt(SYSTEM)])
        result = next(m["content"] for m in session.messages() if m.get("tool_call_id") == "p2")
        entries = child_entries(session)
        child = open_child(session, entries[0]) if entries else None
        first = _first_request(child) if child is not None else []
        return Run(folder, session, entries[0] if entries else None, child, result, first)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _first_request(child: Session) -> list[dict]:
    call_entry = next(e for e in child.entries if e["type"] == "model_call")
    return call_entry["request"]["messages"]


class ChildApp:
    """Widgets: the brief's three fields, the mode, the child's round limit and how many files it wants to read."""

    def __init__(self, lab: ChildLab | None = None):
        import ipywidgets as w

        self.lab = lab or ChildLab()
        self.goal = w.Text(value="Find which plugins handle the export event and their UNIT.", description="目标")
        self.context = w.Text(value="plugins/ holds 30 small modules.", description="背景")
        self.output = w.Text(value="One line per plugin: plugins/NAME.py - UNIT", description="报告格式")
        self.mode = w.ToggleButtons(options=[("全新", "fresh"), ("分叉", "fork")], description="mode")
        self.rounds = w.IntSlider(value=10, min=1, max=40, description="轮数上限")
        self.reads = w.IntSlider(value=3, min=0, max=30, description="子 agent 要读")
        self.button = w.Button(description="派出子 agent")
        self.out = w.HTML()
        self.button.on_click(lambda _: self.show())
        self.widget = w.VBox([self.goal, self.context, self.output, self.mode, self.rounds, self.reads,
                              self.button, self.out])
        self.show()

    def show(self) -> None:
        run = self.lab.run(self.goal.value, self.context.value, self.output.value, self.mode.value,
                           self.rounds.value, self.reads.value)
        self.out.value = f"<pre>{html.escape(run.describe())}</pre>"

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
