"""The lab "评测你的 agent" (labs/a9/evaluate.ipynb): pick tasks, designs and seeds from recorded runs
and see each design's pass rate, its 95 % interval, pass@k and the price of one solved task.

    sel = Selection.of(folder)                   # every task, design and seed of a results folder
    print(report(folder, sel, rule="anthropic"))  # the same text the widgets show
    EvaluateApp(folder)                          # the widgets (ipywidgets)

The folder is the shipped evaluation by default, or any folder ``python -m prefixlab eval OUT`` wrote
(with ``--url`` pointing at your own server). Nothing here talks to a server: it reads the rows.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from prefixlab.eval import rows, stats
from prefixlab.presenting import cost
from prefixlab.presenting.lab.app import WidgetApp, error_html, panel

from chapters.a9.paths import EVALUATION

LABELS = {"text": "文字调用", "constrained": "约束调用", "oracle": "oracle(脚本)"}


@dataclass(frozen=True)
class Selection:
    tasks: tuple[str, ...]
    designs: tuple[str, ...]
    seeds: tuple[int, int]   # first and last seed, inclusive

    @classmethod
    def of(cls, folder: Path | str = EVALUATION) -> "Selection":
        runs = rows.load(folder)
        seeds = sorted({r.seed for r in runs})
        return cls(tuple(sorted({r.task for r in runs})), tuple(dict.fromkeys(r.design for r in runs)),
                   (seeds[0], seeds[-1]))

    def pick(self, runs: list[rows.Run]) -> list[rows.Run]:
        lo, hi = self.seeds
        return [r for r in runs if r.task in self.tasks and r.design in self.designs and lo <= r.seed <= hi]


def report(folder: Path | str, sel: Selection, rule: str = "anthropic") -> str:
    """Per selected design: runs, passes, pass rate, its interval, pass@k, and the price per solved task."""
    folder = Path(folder)
    runs = sel.pick(rows.load(folder))
    if not runs:
        raise ValueError("这个选择里没有运行:至少选一个任务、一个设计,种子范围要包含录下的种子")
    provider = next((p for p in cost.PROVIDERS if p.rule == rule), None)
    if provider is None:
        raise ValueError(f"没有规则 {rule!r};可选:{', '.join(p.rule for p in cost.PROVIDERS)}")
    lines = [f"{len(runs)} 次运行:{len({r.task for r in runs})} 个任务,种子 {sel.seeds[0]}–{sel.seeds[1]}"]
    for design in [d for d in sel.designs if any(r.design == d for r in runs)]:
        mine = [r for r in runs if r.design == design]
        s = stats.summary(mine)
        fewest = min(x.runs for x in stats.by_task(mine).values())
        k = min(5, fewest)
        priced = cost.price_design(mine, folder, provider)
        lines += ["", f"{LABELS.get(design, design)}({design})",
                  f"  通过 {s.passed} / {s.runs} = {100 * s.rate:.0f}%,95% 区间 {s.interval.pct()}",
                  f"  pass@{k} = {100 * stats.mean_pass_at_k(mine, k):.0f}%(每个任务至少 {fewest} 次运行)"]
        if not any(r.requests for r in mine):
            lines.append("  没有发过一个请求(脚本策略):不花 token,也不花钱")
        elif provider.model is None:
            per = priced.per_solved_tokens
            lines.append(f"  每个解决的任务:{'未定义(一个也没解决)' if per is None else f'{per:,.0f} 个输入 token'}"
                         f"({provider.label})")
        else:
            per = priced.per_solved_usd
            lines.append(f"  每次运行 {priced.per_run_usd:.5f} 美元;每个解决的任务 "
                         f"{'未定义(一个也没解决)' if per is None else f'{per:.5f} 美元'}({provider.label},"
                         f"{provider.model})")
    designs = [d for d in sel.designs if any(r.design == d for r in runs)]
    if len(designs) >= 2:
        a, b = designs[:2]
        c = stats.compare([r for r in runs if r.design == a], [r for r in runs if r.design == b])
        lines += ["", f"{a} 对 {b}:{c.verdict_zh};Fisher 精确检验 p = {c.p_value:.3f}"]
    return "\n".join(lines)


class EvaluateApp(WidgetApp):
    """Widgets: tasks, designs, the seed range and the provider rule; the report below them."""

    TITLE = "评测:挑任务、设计和种子"

    def __init__(self, folder: Path | str = EVALUATION):
        import ipywidgets as w

        self.folder = Path(folder)
        full = Selection.of(self.folder)
        self.tasks = w.SelectMultiple(options=full.tasks, value=full.tasks, rows=min(10, len(full.tasks)),
                                      description="任务")
        self.designs = w.SelectMultiple(options=[(LABELS.get(d, d), d) for d in full.designs], value=full.designs,
                                        rows=len(full.designs), description="设计")
        lo, hi = full.seeds
        self.seeds = w.IntRangeSlider(value=(lo, hi), min=lo, max=hi, step=1, description="种子")
        self.rule = w.Dropdown(options=[(p.label, p.rule) for p in cost.PROVIDERS], value="anthropic",
                               description="记账")
        self.out = w.HTML()
        for control in (self.tasks, self.designs, self.seeds, self.rule):
            control.observe(lambda _: self.show(), names="value")
        self.widget = w.VBox([w.HBox([self.tasks, self.designs]), self.seeds, self.rule, self.out])
        self.show()

    def selection(self) -> Selection:
        return Selection(tuple(self.tasks.value), tuple(self.designs.value), tuple(self.seeds.value))

    def show(self) -> None:
        try:
            self.out.value = panel(report(self.folder, self.selection(), self.rule.value))
        except (ValueError, rows.ResultsError, cost.CostError) as err:
            self.out.value = error_html(str(err))
