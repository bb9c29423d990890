"""A2·5's lab switch (labs/a2/tool-block.ipynb): pick a way to get a call out of the live model, see what it
sent, what came back and what it costs in the prompt, from the shipped a2-ways recording (no server).

``WaysLab.describe(way, seed)`` reads the session of that way and seed: the request fields that differ
between the ways (``tool_choice``, ``response_format``), the prompt and generated tokens, the reply as the
server returned it and the call miniagent acts on (or none), and, for the schema way, what the schema
would cost if it were written into the prompt instead of being sent as a sampler constraint.
"""
from __future__ import annotations

import json

from chapters.a2.figures.ways import WAY_LABELS, recording
from chapters.a2.four_ways import WAYS, prompt_costs, runs
from chapters.a2.paths import FOUR_WAYS_RECORDING
from prefixlab.presenting.lab.app import WidgetApp, error_html, panel


class WaysLab:
    def __init__(self):
        self.rec = recording()
        self.runs = {(r.way, r.seed): r for r in runs(FOUR_WAYS_RECORDING)}
        self.seeds = sorted({seed for _, seed in self.runs})
        self.costs = prompt_costs(FOUR_WAYS_RECORDING)

    def describe(self, way: str = "schema", seed: int = 1, show_schema: bool = False) -> str:
        if way not in WAYS:
            raise ValueError(f"方式只能是 {'、'.join(WAYS)} 之一,不是 {way!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or (way, seed) not in self.runs:
            raise ValueError(f"录制里的种子是 {self.seeds[0]}–{self.seeds[-1]},没有 {seed!r}")
        run = self.runs[(way, seed)]
        calls = [c for c in self.rec.calls if c.session == f"{way}-{seed:02d}"]
        first = calls[0].request
        extra = {k: first[k] for k in ("tool_choice", "response_format") if k in first}
        lines = [f"{WAY_LABELS[way]},种子 {seed}:{len(calls)} 个请求",
                 "请求比平时多的字段:" + (", ".join(extra) if extra else "没有(miniagent 平时的请求)"),
                 f"prompt {run.prompt_tokens:,} 个 token(其中工具块 {self.costs['tool_block']:,} 个),"
                 f"生成 {run.completion_tokens:,} 个 token"]
        for i, call in enumerate(calls, 1):
            message = call.response["choices"][0]["message"]
            finish = call.response["choices"][0].get("finish_reason")
            lines += ["", f"第 {i} 个回答(finish_reason: {finish}):", (message.get("content") or "").strip() or "(没有文字)"]
            for c in message.get("tool_calls") or []:
                lines.append(f"服务器解析出的调用:{c['function']['name']} {c['function']['arguments']}")
        verdict = ("格式合格" + (",参数合格" if run.schema_valid else ",参数不合格")
                   + (",调用对了(跑检查)" if run.right_tool else ("" if not run.schema_valid else ",可不是任务要的第一步"))
                   if run.well_formed else "没有 miniagent 能执行的调用")
        lines += ["", f"miniagent 读到的:{verdict}"]
        if way == "schema":
            lines.append(f"schema 是交给采样器的参数,不进 prompt;写成文字放进 prompt 要多 {self.costs['schema_as_text']:,} 个 token")
            if show_schema:
                lines += ["", json.dumps(extra["response_format"], ensure_ascii=False, indent=1)]
        return "\n".join(lines)


class WaysApp(WidgetApp):
    TITLE = "取得工具调用的四种方式"

    def __init__(self, lab: WaysLab | None = None):
        import ipywidgets as w

        self.lab = lab or WaysLab()
        self.way = w.Dropdown(description="方式", options=[(WAY_LABELS[k], k) for k in WAYS], value="schema")
        self.seed = w.Dropdown(description="种子", options=self.lab.seeds, value=self.lab.seeds[0])
        self.show = w.Checkbox(description="显示 schema 原文", value=False)
        self.panel = w.HTML()
        for control in (self.way, self.seed, self.show):
            control.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.way, self.seed, self.show, self.panel])
        self._show()

    def _show(self):
        try:
            self.panel.value = panel(self.lab.describe(self.way.value, self.seed.value, self.show.value))
        except ValueError as err:
            self.panel.value = error_html(str(err))
