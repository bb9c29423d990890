"""The A2 lab (labs/a2/tool-block.ipynb): choose the tools, see the block the template writes for them.

``ToolBlockLab.describe(names, model, rounds)`` renders the first request of A2·1 offering the chosen tools
(from the fifteen of ``data/a2/tool-sets.yml``) with the course template or the live model's, and says how
many tokens the block takes, per request and over ``rounds`` requests, and what that costs under the dated
price table (sent fresh every time, or written once and read back). No server is needed.
"""
from __future__ import annotations

from chapters.a2.experiments.call_shapes import SYSTEM
from chapters.a2.tool_blocks import MODELS, block_tokens, cloud_cost, tool_block, tool_set
from prefixlab.presenting.lab.app import WidgetApp, error_html, panel

MODEL_WORDS = {"course": "课程服务器(SmolLM2,Qwen3 模板)", "live": "live 模型(Qwen2.5 Coder 0.5B,自带模板)"}


class ToolBlockLab:
    def __init__(self):
        self.tools = {d["function"]["name"]: d for d in tool_set("fifteen")}

    def chosen(self, names) -> list[dict]:
        unknown = [n for n in names if n not in self.tools]
        if unknown:
            raise ValueError(f"没有这个工具:{', '.join(unknown)};可选的是 {', '.join(self.tools)}")
        return [self.tools[n] for n in self.tools if n in names]  # in the set's order

    def describe(self, names=("read", "bash", "edit", "write"), model: str = "course", rounds: int = 20,
                 show_block: bool = False) -> str:
        if model not in MODELS:
            raise ValueError(f"模型只能是 {' 或 '.join(MODELS)},不是 {model!r}")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
            raise ValueError(f"请求数要是正整数,不是 {rounds!r}")
        tools = self.chosen(names)
        if not tools:
            return "一个工具也没选:请求里没有工具块,模型也就调用不了任何工具。"
        n = block_tokens(SYSTEM, tools, model=model)
        cost = cloud_cost(n, rounds)
        lines = [f"{MODEL_WORDS[model]}:{len(tools)} 个工具,工具块 {n:,} 个 token / 请求",
                 f"{rounds} 个请求一共 {n * rounds:,} 个 token",
                 f"{cost['model']}:每次都按原价 {cost['uncached']:.4f} 美元;第一次写入、之后读取 {cost['cached']:.4f} 美元"]
        if show_block:
            lines += ["", tool_block(SYSTEM, tools, model).strip()]
        return "\n".join(lines)


class ToolBlockApp(WidgetApp):
    TITLE = "工具块计算器"

    def __init__(self, lab: ToolBlockLab | None = None):
        import ipywidgets as w

        self.lab = lab or ToolBlockLab()
        self.names = w.SelectMultiple(description="工具", options=list(self.lab.tools),
                                      value=("read", "bash", "edit", "write"), rows=8)
        self.model = w.Dropdown(description="模板", options=[(v, k) for k, v in MODEL_WORDS.items()], value="course")
        self.rounds = w.IntSlider(description="请求数", min=1, max=100, value=20)
        self.show = w.Checkbox(description="显示工具块原文", value=False)
        self.panel = w.HTML()
        for control in (self.names, self.model, self.rounds, self.show):
            control.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.names, self.model, self.rounds, self.show, self.panel])
        self._show()

    def _show(self):
        try:
            self.panel.value = panel(self.lab.describe(self.names.value, self.model.value, self.rounds.value,
                                                       self.show.value))
        except ValueError as err:
            self.panel.value = error_html(str(err))
