"""The A5 lab, A5·3: read the summaries of one recorded run, layer by layer, and see where the rule goes.

Nothing is run: every summary is the one the live model wrote in the recording
``a5-3-layers-qwen2.5-coder-0.5b-llamacpp``, and "the rule is in the summary" / "the rule still reaches
the model" are the page's own judgements (chapters/a5/figures/layers.py), so the lab and the page agree.

    lab = LayerLab()
    print(lab.describe("free", seed=1, depth=3))
"""
from __future__ import annotations

from chapters.a5.figures.layers import DEPTHS, LABELS, Layer, layers, recording
from prefixlab.presenting.lab.app import WidgetApp, error_html, panel

# Where the rule can still be after a compaction, per way of compacting (besides the summary itself).
WHERE = {"free": "只有摘要:摘要没写,规矩就没了", "structured": "只有摘要:摘要没写,规矩就没了",
         "keep-user": "摘要消息开头的用户消息原文", "agents-md": "system prompt 里的 AGENTS.md"}
IN_SUMMARY = {"verbatim": "有,原话", "paraphrase": "有,换了说法", None: "没有"}


class LayerLab:
    def __init__(self, rec=None):
        self.rec = rec or recording()
        self.rule = self.rec.manifest["rule"]
        self.rows = layers(self.rec)

    def seeds(self, variant: str) -> list[int]:
        """The recorded runs of ``variant``."""
        self._check_variant(variant)
        return sorted({r.seed for r in self.rows if r.variant == variant})

    def _check_variant(self, variant: str) -> None:
        if variant not in LABELS:
            raise ValueError(f"做法只能是 {'、'.join(LABELS)} 之一,收到 {variant!r}")

    def run(self, variant: str, seed: int, depth: int) -> list[Layer]:
        """The first ``depth`` compactions of one recorded run."""
        seeds = self.seeds(variant)
        if seed not in seeds:
            raise ValueError(f"{LABELS[variant]}录了第 {seeds[0]}–{seeds[-1]} 次运行,没有第 {seed!r} 次")
        if depth not in DEPTHS:
            raise ValueError(f"每次运行压缩 {len(DEPTHS)} 次:第几次压缩要在 {DEPTHS[0]} 和 {DEPTHS[-1]} 之间,收到 {depth!r}")
        return [r for r in self.rows if r.variant == variant and r.seed == seed and r.depth <= depth]

    def describe(self, variant: str = "free", seed: int = 1, depth: int = 3) -> str:
        chain = self.run(variant, seed, depth)
        lines = [f"{LABELS[variant]},第 {seed} 次运行,压缩到第 {depth} 次。规矩:“{self.rule}”",
                 f"摘要之外,规矩还能在哪里:{WHERE[variant]}", ""]
        for layer in chain:
            cut = ",写到长度上限被截断" if layer.truncated else ""
            lines += [f"── 第 {layer.depth} 次压缩:模型写了 {layer.completion_tokens} 个 token{cut} ──",
                      f"摘要里有规矩吗:{IN_SUMMARY[layer.in_summary]}"
                      f";压缩之后模型还看得到规矩吗:{'看得到' if layer.reaches_model else '看不到'}"
                      f";还提到任务(负温度)吗:{'提到' if layer.task else '没提'}",
                      layer.summary.strip() or "(空)", ""]
        return "\n".join(lines).rstrip()


class LayerApp(WidgetApp):
    TITLE = "层层摘要查看器"

    def __init__(self, lab: LayerLab | None = None):
        import ipywidgets as w

        self.lab = lab or LayerLab()
        self.variant = w.Dropdown(description="做法", options=[(v, k) for k, v in LABELS.items()], value="free")
        self.seed = w.Dropdown(description="第几次运行", options=self.lab.seeds("free"), value=1)
        self.depth = w.IntSlider(description="压缩到第", min=DEPTHS[0], max=DEPTHS[-1], value=DEPTHS[-1])
        self.panel = w.HTML()
        self.variant.observe(self._new_variant, "value")
        for control in (self.seed, self.depth):
            control.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.variant, self.seed, self.depth, self.panel])
        self._show()

    def _new_variant(self, _):
        seeds, seed = self.lab.seeds(self.variant.value), self.seed.value
        if list(self.seed.options) != seeds:  # a variant with other runs: keep the run number if it has it
            self.seed.options = seeds
            self.seed.value = seed if seed in seeds else seeds[0]
        self._show()

    def _show(self):
        try:
            self.panel.value = panel(self.lab.describe(self.variant.value, self.seed.value, self.depth.value))
        except ValueError as err:
            self.panel.value = error_html(str(err))
