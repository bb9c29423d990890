"""The A5 lab: A5·1's task replayed offline under a trigger you choose.

No server and no model: the assistant turns come from A5·1's script (data/a5/triggers/script.yml),
the tools run for real on a fresh copy of the toy repository with the readings, and a compaction's
summary is a stand-in text of a chosen length (a real model writes it in the recordings). Every
request is counted exactly as llama-server counts it: its chat template and tokenizer, tools
included. So the sizes are what the server would see; without compaction they are the recorded ones.

    lab = TriggerLab()
    rows = lab.simulate("reserve", window=4096, reserve=1024)
    print(lab.describe("every-n", max_messages=8))
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from miniagent.compaction import Compactor, model_summariser, threshold
from miniagent.loop import run_task
from miniagent.memory import MemoryStore
from miniagent.model import ModelReply
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from chapters.a5.paths import REPO_OVERLAY, TRIGGERS_DIR
from prefixlab.cache.tokenizer import load_template, load_tokenizer, prompt_token_ids
from prefixlab.paths import TOY_REPO
from prefixlab.presenting.lab.app import WidgetApp, error_html, panel
from prefixlab.recording.policy import load_script, scripted_message
from prefixlab.recording.repository import Repository

TRIGGERS = {"never": "从不压缩", "every-n": "每 N 条消息压一次", "reserve": "窗口减预留"}
KIND_WORDS = {"agent": "agent 的请求", "summary": "摘要请求", "over": "超出窗口(服务器会拒收)"}


@dataclass(frozen=True)
class Step:
    n: int
    kind: str  # "agent", "summary" or "over" (an agent request the server would refuse)
    tokens: int


class _Counted:
    """A stand-in model: answers from the script (or a summary of fixed length) and counts each request."""

    def __init__(self, turns, count, steps, window, summary_words):
        self.turns, self.count, self.steps, self.window = list(turns), count, steps, window
        self.summary_words = summary_words

    def complete(self, messages, tools=None, **params):
        tokens = self.count(messages, tools)
        if tools is None:  # the summary call
            self.steps.append(Step(len(self.steps) + 1, "summary", tokens))
            message = {"role": "assistant", "content": " ".join(["note"] * self.summary_words)}
        else:
            over = tokens >= self.window
            self.steps.append(Step(len(self.steps) + 1, "over" if over else "agent", tokens))
            if over:
                raise _Refused()
            message = scripted_message(self.turns.pop(0), f"call_lab_{len(self.steps)}")
        return ModelReply(message, {"messages": messages, "tools": tools}, {"usage": {"prompt_tokens": tokens}})


class _Refused(Exception):
    pass


class TriggerLab:
    def __init__(self):
        self.script = load_script(TRIGGERS_DIR / "script.yml")
        self.template, self.tokenizer = load_template(), load_tokenizer()

    def count(self, messages, tools=None) -> int:
        return len(prompt_token_ids(self.template, self.tokenizer, messages, tools))

    def simulate(self, trigger: str = "reserve", *, window: int | None = None, reserve: int | None = None,
                 max_messages: int | None = None, keep_rounds: int | None = None,
                 summary_words: int = 60) -> list[Step]:
        """Every request of the task under ``trigger`` (defaults: the script's settings)."""
        s = self.script
        if trigger not in TRIGGERS:
            raise ValueError(f"触发方式只能是 {'、'.join(TRIGGERS)} 之一,收到 {trigger!r}")
        window, reserve = window or s["window"], s["reserve"] if reserve is None else reserve
        max_messages, keep_rounds = max_messages or s["max_messages"], keep_rounds or s["keep_rounds"]
        if not 0 <= reserve < window:
            raise ValueError(f"预留({reserve})要在 0 和窗口({window})之间")
        if max_messages < 2 or keep_rounds < 1 or summary_words < 0:
            raise ValueError("消息条数至少 2,保留轮数至少 1,摘要长度不能是负数")
        steps: list[Step] = []
        with tempfile.TemporaryDirectory(prefix="a5-lab-") as tmp:
            root = Path(tmp)
            Repository(TOY_REPO, (REPO_OVERLAY,)).copy_to(root / "repo")
            memory = MemoryStore(root / "home" / "MEMORY.md")
            toolbox = Toolbox(Workspace(root / "repo"), memory)
            model = _Counted(s["replies"], self.count, steps, window, summary_words)
            summarise = model_summariser(model)  # no tools offered: that is how the stand-in tells a summary call
            design = for_mode("frozen", BASE_PROMPT, read_agents_md(root / "repo"), memory)
            step = None
            if trigger == "every-n":
                step = Compactor(10**9, summarise, keep_rounds=keep_rounds, max_messages=max_messages)
            elif trigger == "reserve":
                step = Compactor(threshold(window, reserve), summarise, keep_rounds=keep_rounds,
                                 count_tokens=lambda m: self.count(m, toolbox.definitions))
            try:
                run_task(s["task"].strip(), model=model, toolbox=toolbox, session=Session.open(root / "s.jsonl"),
                         steps=[design] if step is None else [step, design], max_rounds=len(s["replies"]))
            except _Refused:
                pass
        return steps

    def describe(self, trigger: str = "reserve", **settings) -> str:
        steps = self.simulate(trigger, **settings)
        lines = [f"{TRIGGERS[trigger]}:{len(steps)} 个请求,压缩 {sum(x.kind == 'summary' for x in steps)} 次"]
        lines += [f"  {x.n:>2}. {x.tokens:>6,} 个 token  {KIND_WORDS[x.kind]}" for x in steps]
        if steps and steps[-1].kind == "over":
            lines.append("  任务停在这里:请求超出窗口。")
        return "\n".join(lines)


class TriggerApp(WidgetApp):
    TITLE = "压缩触发器模拟"

    def __init__(self, lab: TriggerLab | None = None):
        import ipywidgets as w

        self.lab = lab or TriggerLab()
        s = self.lab.script
        self.trigger = w.Dropdown(description="触发", options=[(v, k) for k, v in TRIGGERS.items()], value="reserve")
        self.window = w.IntSlider(description="窗口", min=2048, max=8192, step=256, value=s["window"])
        self.reserve = w.IntSlider(description="预留", min=0, max=3072, step=128, value=s["reserve"])
        self.messages = w.IntSlider(description="N 条消息", min=4, max=20, value=s["max_messages"])
        self.keep = w.IntSlider(description="保留轮数", min=1, max=4, value=s["keep_rounds"])
        self.panel = w.HTML()
        for control in (self.trigger, self.window, self.reserve, self.messages, self.keep):
            control.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.trigger, self.window, self.reserve, self.messages, self.keep, self.panel])
        self._show()

    def _show(self):
        try:
            self.panel.value = panel(self.lab.describe(self.trigger.value, window=self.window.value,
                                                       reserve=self.reserve.value, max_messages=self.messages.value,
                                                       keep_rounds=self.keep.value))
        except ValueError as err:
            self.panel.value = error_html(str(err))
