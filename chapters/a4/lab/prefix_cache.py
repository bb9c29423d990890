"""Chapter A4's lab (labs/a4/prefix-cache.ipynb): change one piece of a prompt, see where each rule breaks.

    lab = PrefixLab()                                          # the prompt A4·1 swept (miniagent's first request)
    print(lab.describe("system", "repository", "Repository"))  # first "repository" of the system text changed
    PrefixApp(lab)                                             # ipywidgets: pick a change or type your own

The prompt is sent twice, as the calculator sees it: first unchanged (the cache holds it), then with
the change. Every rule predicts what the second request reads: llama.cpp (one slot, the recording's
server), Anthropic (Claude Opus 5, automatic caching) and OpenAI (before GPT-5.6). The tokens are our
model's (the course's chat template and tokenizer), so the cloud rules' numbers are what their rules
would do with these tokens, not what their servers report.

``describe`` is plain text (what nbval compares); the app needs a kernel (JupyterLab or Binder).
"""
from __future__ import annotations

from dataclasses import dataclass

from prefixlab.cache import calculator, rules
from prefixlab.cache.rules.base import Request, common_prefix
from prefixlab.presenting.lab.app import WidgetApp, error_html, panel
from prefixlab.recording.format import load

from chapters.a4.paths import A41_RECORDING

PARTS = {"system": "system prompt", "task": "任务(user 消息)"}
RULES = (("llamacpp", "llama.cpp(一个槽位)", {}),
         ("anthropic", "Anthropic(Claude Opus 5,只开自动缓存)", {"model": "claude-opus-5"}),
         ("openai", "OpenAI(GPT-5.6 之前的自动缓存)", {}))
# Ready-made changes for the app's first control: (label, part, old, new)
PRESETS = (("system prompt 的第一个词", "system", "You are", "Yuu are"),
           ("AGENTS.md 里的一个词", "system", "Conventions", "Qonventions"),
           ("只改任务的最后一个字", "task", "README.", "README!"))
CONTEXT_CHARS = 40  # characters shown on each side of the break


class ChangeError(ValueError):
    """A change the lab cannot make (the message is for the learner, in Chinese)."""


@dataclass(frozen=True)
class Outcome:
    """The prompt before and after the change, where their tokens first differ, and what each rule reads."""

    n_before: int
    n_after: int
    p: int                      # the first token that differs (n_before when nothing differs)
    block: str | None           # the block that token is in
    before_text: str            # a little of the rendered prompt before the break ...
    after_text: str             # ... and from the break on
    read: dict[str, int]        # rule -> tokens the changed prompt reads back


class PrefixLab:
    """One recorded request (A4·1's unchanged prompt), changed the way you say, under every rule."""

    def __init__(self, path=A41_RECORDING, session: str = "base-1"):
        self.recording = load(path)
        self.replay = calculator.prepare(self.recording)
        request = self.recording.session_calls(session)[0].request
        self.messages, self.tools = request["messages"], request.get("tools")
        self.parts = {"system": 0, "task": next(i for i, m in enumerate(self.messages) if m["role"] == "user")}

    def text(self, part: str) -> str:
        return self.messages[self.parts[self._part(part)]]["content"]

    def _part(self, part: str) -> str:
        if part not in self.parts:
            raise ChangeError(f"只能改 {' 或 '.join(self.parts)},收到 {part!r}")
        return part

    def changed(self, part: str, old: str, new: str) -> list[dict]:
        """The messages with the first ``old`` of ``part`` replaced by ``new`` (a copy; nothing is edited)."""
        text = self.text(part)
        if old == new:  # what an identical resend reads is A4·1's exercise 3: the lab does not answer it
            raise ChangeError("改动前后一样:先改点什么。原样重发读取多少,是 A4·1 练习 3 的题目")
        if not old:
            raise ChangeError("先写要改的原文")
        if old not in text:
            raise ChangeError(f"{PARTS[part]} 里没有“{old}”:原文要一字不差(区分大小写)")
        messages = [dict(m) for m in self.messages]
        messages[self.parts[part]]["content"] = text.replace(old, new, 1)
        return messages

    def outcome(self, part: str, old: str, new: str) -> Outcome:
        before = self.replay.attribute(self.messages, self.tools)
        after = self.replay.attribute(self.changed(part, old, new), self.tools)
        p = common_prefix(before.ids, after.ids)
        block = after.block_at(p) if p < len(after.ids) else None
        text_before, text_after = after.around(p, 6) if p < len(after.ids) else (after.around(p - 1, 6)[0], "")
        read = {}
        for rule, _, settings in RULES:
            api = rules.get(rule).API
            requests = [Request(att.ids, (), float(t), "lab", att.rule_blocks(api=api))
                        for t, att in enumerate((before, after))]
            config = calculator.rule_config(self.recording, rule, **settings)
            read[rule] = rules.predict(rule, requests, **config)[1].read
        return Outcome(len(before.ids), len(after.ids), p, block.name if block else None,
                       text_before[-CONTEXT_CHARS:], text_after[:CONTEXT_CHARS], read)

    def describe(self, part: str, old: str, new: str) -> str:
        """The change, where the tokens first differ, and what each rule reads back (plain text)."""
        o = self.outcome(part, old, new)
        if o.p == o.n_before == o.n_after:  # e.g. a change the tokenizer does not see
            head = f"改动前后的 token 完全一样:两次发的是同一份 {o.n_before:,} 个 token 的 prompt。"
        else:
            head = (f"把 {PARTS[part]} 里的“{old}”改成“{new}”:prompt 从 {o.n_before:,} 个 token 变成 {o.n_after:,} 个,"
                    f"第一个不同的 token 在 p = {o.p:,}(块 {o.block})。\n"
                    f"  打断处前后:…{o.before_text!r} | {o.after_text!r}…")
        lines = [head, "改过的 prompt 紧接着原样的那一份发出,各规则读取:"]
        for rule, label, _ in RULES:
            lines.append(f"  {label}:读取 {o.read[rule]:,},重算 {o.n_after - o.read[rule]:,}")
        return "\n".join(lines)


class PrefixApp(WidgetApp):
    TITLE = "改一处,看前缀断在哪里"

    def __init__(self, lab: PrefixLab | None = None):
        import ipywidgets as w

        self.lab = lab or PrefixLab()
        style = {"description_width": "6em"}
        self.preset = w.Dropdown(description="现成的改法", style=style, layout=w.Layout(width="36em"),
                                 options=[(label, i) for i, (label, *_) in enumerate(PRESETS)], value=0)
        self.part = w.Dropdown(description="改哪里", style=style, options=[(v, k) for k, v in PARTS.items()])
        self.old = w.Text(description="原文", style=style, layout=w.Layout(width="30em"))
        self.new = w.Text(description="改成", style=style, layout=w.Layout(width="30em"))
        self.run = w.Button(description="算一算", icon="play")
        self.result = w.HTML()
        self.preset.observe(lambda _: self._preset(), "value")
        self.run.on_click(lambda _: self._show())
        self.widget = w.VBox([self.preset, w.HTML("或者自己写一处改动(原文要在那一部分里一字不差地出现):"),
                              self.part, self.old, self.new, self.run, self.result])
        self._preset()

    def _preset(self):
        _, part, old, new = PRESETS[self.preset.value]
        self.part.value, self.old.value, self.new.value = part, old, new
        self._show()

    def _show(self):
        try:
            self.result.value = panel(self.lab.describe(self.part.value, self.old.value, self.new.value))
        except ChangeError as err:  # a typo in the original text: say so, keep the last result's controls
            self.result.value = error_html(str(err))
