"""The calculator lab in ipywidgets, and running a course command from a notebook."""
from __future__ import annotations

import html
import subprocess
import sys

from prefixlab.paths import REPO_ROOT

from .app import WidgetApp, error_html
from .render import break_html, cost_html, figure, scenario_html
from .state import CalculatorLab, LabState, rule_label, takes


class CalculatorApp(WidgetApp):
    """ipywidgets around a CalculatorLab: every change calls ``lab.update`` and redraws."""

    TITLE = "前缀缓存计算器"

    def __init__(self, lab: CalculatorLab | None = None):
        import ipywidgets as w

        self.lab = lab or CalculatorLab()
        style, wide = {"description_width": "7em"}, w.Layout(width="36em")
        self.recording = w.Dropdown(description="录制", style=style, layout=wide)
        self.path = w.Text(description="或输入路径", placeholder="任意录制目录,例如 data/recordings/my-recording",
                           style=style, layout=w.Layout(width="36em"))
        self.open_button = w.Button(description="打开", icon="folder-open")
        self.error = w.HTML()
        self.session = w.Dropdown(description="会话", style=style, layout=wide)
        self.rule = w.Dropdown(description="缓存规则", style=style)
        self.model = w.Dropdown(description="Claude 模型", style=style)
        self.min_tokens = w.HTML(layout=w.Layout(margin="0 0 0 7.5em"))
        self.breakpoint = w.Dropdown(description="显式断点", style=style)
        self.k = w.IntSlider(description="反事实 k", min=0, style=style, continuous_update=False)
        self.k_note = w.HTML()
        self.scenario = w.HTML()
        self.round = w.Dropdown(description="看第几轮", style=style)
        self.chart = w.Output()
        self.break_panel = w.HTML()
        self.cost_panel = w.HTML()
        self.note = w.HTML()
        self._syncing = False

        for control, name in [(self.session, "session"), (self.rule, "rule"), (self.model, "model"),
                              (self.k, "k"), (self.round, "round")]:
            control.observe(lambda change, name=name: self._change(**{name: change.new}), "value")
        self.breakpoint.observe(lambda change: self._change(breakpoint=change.new or None), "value")
        self.recording.observe(lambda change: self._change(recording=change.new), "value")
        self.open_button.on_click(lambda _: self._change(recording=self.path.value))

        self.widget = w.VBox([
            self.recording, w.HBox([self.path, self.open_button]), self.error,
            self.session, w.HBox([self.rule, self.breakpoint]), self.model, self.min_tokens,
            w.HBox([self.k, self.k_note]), self.scenario, self.chart, self.round,
            self.break_panel, self.cost_panel, self.note,
        ])
        self.show(self.lab.state)

    def _change(self, **changes) -> None:
        if not self._syncing:
            self.show(self.lab.update(**changes))

    def show(self, s: LabState) -> None:
        """Put the state into the widgets (without triggering updates)."""
        self._syncing = True
        try:
            c = s.controls
            choices = list(s.recordings)
            if c.recording and c.recording not in choices:
                choices.append(c.recording)
            self.recording.options = choices
            self.recording.value = c.recording or None
            self.error.value = error_html(s.error) if s.error else ""
            self.session.options, self.session.value = s.sessions, c.session or None
            self.rule.options = [(rule_label(r), r) for r in s.rules]
            self.rule.value = c.rule
            self.model.options, self.model.value = s.models, c.model
            self.min_tokens.value = html.escape(s.min_tokens)
            # "" for none: a Dropdown whose value is None shows no selection at all
            self.breakpoint.options = [("(无)", "")] + [(b, b) for b in s.breakpoints]
            self.breakpoint.value = c.breakpoint or ""
            self.breakpoint.disabled = not takes(c.rule, "breakpoints")
            self.k.max, self.k.value, self.k.disabled = max(s.k_max, 1), c.k, s.k_max == 0
            self.k_note.value = html.escape(s.k_note or "0 = 不刷新(按录制原样);k = 第 k 轮写入后立即刷新")
            self.scenario.value = scenario_html(s)
            self.round.options = [(f"第 {r} 轮", r) for r in s.rounds]
            self.round.value = c.round
            self.break_panel.value = break_html(s)
            self.cost_panel.value = cost_html(s)
            self.note.value = s.provenance._repr_html_() + "".join(
                f"<p><small>{html.escape(n)}</small></p>" for n in s.notes)
            # Only plotly's JSON (JupyterLab) and the book's HTML: a figure's text/plain repr is its
            # whole JSON again, which would bloat the widget state saved in the notebook.
            self.chart.outputs = ({"output_type": "display_data", "data": figure(s)._repr_mimebundle_(),
                                   "metadata": {}},) if s.rows else ()
        finally:
            self._syncing = False


def run_module(module: str, *args: str) -> int:
    """``python -m module args`` from the repo root, its output printed line by line as it comes.

    A subprocess, not a call in the kernel: the recording's provenance stores the command line,
    and relative paths mean the same as in the README.
    """
    cmd = [sys.executable, "-m", module, *map(str, args)]
    print("$ python -m", module, *args, flush=True)
    with subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, bufsize=1) as proc:
        for line in proc.stdout:
            print(line, end="", flush=True)
    return proc.returncode
