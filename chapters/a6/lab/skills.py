"""Lesson A6·3's lab (labs/a6/skills.ipynb): the cost of skills in the prompt, and miniagent's skills loader, live.

    count = CountLab()                       # the Hermes manifest, our tokenizer, a price list
    print(count.describe(20, cap=60))        # 20 skills (shortest first): inline vs index tokens, price, window
    CountApp(count)                          # ipywidgets: drag n and the description cap

    folder = FolderLab()                     # a temporary copy of data/a6/skills/ours
    folder.write("my-skill", "---\\nname: my-skill\\n...")
    print(folder.describe())                 # the index miniagent builds, its tokens, and what it could not load
    FolderApp(folder)                        # ipywidgets: edit or add a SKILL.md and see the index change

    t12 = RequestLab()                       # the shipped T12 recording
    print(t12.describe("added-stable-day1", 5))  # one request: its parts in order, the hit, where it broke
    RequestApp(t12)                          # ipywidgets: pick a session and a round

The plain-text ``describe`` methods are what nbval compares; the apps need a kernel (JupyterLab or
Binder). ``FolderLab(path)`` opens your own skills folder instead (read-only unless you save a file).
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from miniagent.skills import DESCRIPTION_CAP, SKILL_FILE, Skill, SkillSet, index_entry
from miniagent.variants.inline_skills import inline as inline_skills

from prefixlab.cache import calculator, pricing
from prefixlab.cache.tokenizer import load_tokenizer, text_token_ids
from chapters.a6.paths import SKILLS
from prefixlab.paths import RECORDINGS, TOKENIZER
from prefixlab.recording.format import load

from ..exercises import a6_3 as exercises_a63
from ..figures import skills as sf
from prefixlab.presenting.lab.app import WidgetApp, error_html, panel
from prefixlab.presenting.lab.wording import skill_problem

OURS = SKILLS / "ours"
T12 = RECORDINGS / "t12-smollm2-llamacpp"
WINDOW = 8192        # the course server's context window (-c 8192); the lesson reads it from the recording
PRICE_MODEL = "claude-sonnet-5-5"


class CountLab:
    """The first n Hermes skills (shortest first): inline vs index tokens, against a window, priced."""

    def __init__(self, manifest: sf.Manifest | None = None, window: int = WINDOW, model: str = PRICE_MODEL,
                 base_tokens: int = 0):
        self.manifest = manifest or sf.load_manifest()
        self.window, self.base_tokens = window, base_tokens
        self.price = pricing.model_price(model)
        self.curve = sf.count_curve(self.manifest, base_tokens)
        self._index_at = {DESCRIPTION_CAP: [p.index for p in self.curve]}

    def index_tokens(self, n: int, cap: int) -> int:
        """Tokens of the index of the first n skills (shortest first) with descriptions cut at ``cap``."""
        if cap not in self._index_at:
            tok = exercises_a63._tokenizer()
            total, out = self.base_tokens + self.manifest.header_tokens, [self.base_tokens]
            for s in sf.ordered(self.manifest):
                line = index_entry(Skill(s.name, s.description, s.path, Path(s.path), ""), cap) + "\n"
                total += len(text_token_ids(tok, line))
                out.append(total)
            self._index_at[cap] = out
        return self._index_at[cap][n]

    def describe(self, n: int, cap: int = DESCRIPTION_CAP) -> str:
        if not 0 <= n < len(self.curve):
            raise ValueError(f"n must be between 0 and {len(self.curve) - 1}")
        p = self.curve[n]
        index = self.index_tokens(n, cap)
        def usd(t, term="uncached"):
            return f"${sf.request_usd(t, self.price, term):.4f}"
        fits = "放得下" if p.inline <= self.window else f"超出窗口 {p.inline - self.window:,}"
        return (f"前 {n} 份技能(从最短的起;第 {n} 份:{p.last or '—'})\n"
                f"全文内联:{p.inline:,} token({fits}),每个请求 {usd(p.inline)},整段命中缓存 {usd(p.inline, 'read')}\n"
                f"只放索引(描述上限 {cap:,} 字符):{index:,} token,每个请求 {usd(index)},整段命中 {usd(index, 'read')}\n"
                f"窗口 {self.window:,} token;价目:{self.price.name}")


class CountApp(WidgetApp):
    TITLE = "技能份数与索引上限"

    def __init__(self, lab: CountLab | None = None):
        import ipywidgets as w

        self.lab = lab or CountLab()
        style = {"description_width": "8em"}
        self.n = w.IntSlider(description="技能份数 n", min=0, max=len(self.lab.curve) - 1, value=len(self.lab.curve) - 1,
                             style=style, continuous_update=False, layout=w.Layout(width="40em"))
        self.cap = w.Dropdown(description="描述上限(字符)", style=style,
                              options=[(f"{c:,}" + label, c) for c, label in (
                                  (DESCRIPTION_CAP, "(miniagent、Hermes)"), (250, ""),
                                  (sf.CITED_CAPS["spec"][0], "(规范上限;pi 不截短)"),
                                  (sf.CITED_CAPS["claude-code"][0], "(Claude Code)"))])
        self.panel = w.HTML()
        self.n.observe(lambda _: self._show(), "value")
        self.cap.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.n, self.cap, self.panel])
        self._show()

    def _show(self):
        self.panel.value = panel(self.lab.describe(self.n.value, self.cap.value))


class FolderLab:
    """miniagent's skills loader on a folder you can edit (a temporary copy of data/a6/skills/ours by default)."""

    def __init__(self, path: Path | str | None = None):
        if path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="skills-lab-")
            self.root = Path(self._tmp.name) / "skills"
            shutil.copytree(OURS, self.root)
        else:
            self.root = Path(path).resolve()
        self.skills = SkillSet(self.root, label="skills")
        self._tok = None

    def names(self) -> list[str]:
        return sorted(p.parent.name for p in self.root.glob(f"*/{SKILL_FILE}"))

    def read(self, name: str) -> str:
        return (self.root / name / SKILL_FILE).read_text(encoding="utf-8")

    def write(self, name: str, text: str) -> None:
        """Replace (or create) the SKILL.md of skill directory ``name``."""
        if not name or "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"a skill directory is one plain name, not {name!r}")
        path = self.root / name / SKILL_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def tokens(self, text: str) -> int:
        self._tok = self._tok or load_tokenizer(TOKENIZER)
        return len(text_token_ids(self._tok, text)) if text else 0

    def describe(self) -> str:
        index, inline = self.skills.index(), inline_skills(self.skills)
        lines = [f"{len(self.skills.load())} 份技能:索引 {self.tokens(index):,} token,全文内联 {self.tokens(inline):,} token"]
        lines += [f"没有加载 {skill_problem(p)}" for p in self.skills.problems]
        return "\n".join(lines) + "\n\n" + (index or "(索引为空)")


class FolderApp(WidgetApp):
    TITLE = "技能目录与索引"

    def __init__(self, lab: FolderLab | None = None):
        import ipywidgets as w

        self.lab = lab or FolderLab()
        style = {"description_width": "6em"}
        self.name = w.Combobox(description="技能目录", options=self.lab.names(), value=self.lab.names()[0], style=style,
                               ensure_option=False)
        self.editor = w.Textarea(layout=w.Layout(width="48em", height="14em"))
        self.save = w.Button(description="保存并重建索引", icon="save")
        self.result = w.HTML()
        self.name.observe(lambda _: self._load(), "value")
        self.save.on_click(lambda _: self._save())
        self.widget = w.VBox([w.HTML("<b>改一份 SKILL.md,或者输入新的目录名写一份</b>(改的是临时副本):"),
                              self.name, self.editor, self.save, self.result])
        self._load()
        self._show()

    def _load(self):
        if self.name.value in self.lab.names():
            self.editor.value = self.lab.read(self.name.value)

    def _save(self):
        try:
            self.lab.write(self.name.value.strip(), self.editor.value)
        except ValueError as err:
            self.result.value = error_html(f"没有保存:{err}")
            return
        self.name.options = self.lab.names()
        self._show()

    def _show(self):
        self.result.value = panel(self.lab.describe())


class RequestLab:
    """The T12 requests, block by block: what the prompt holds, what the server read back, where it broke."""

    def __init__(self, path: Path | str = T12):
        self.recording = load(path)
        self.rows = calculator.analyze(self.recording)

    def sessions(self) -> list[str]:
        return list(dict.fromkeys(r.session for r in self.rows))

    def rounds(self, session: str) -> list[int]:
        return [r.round for r in self.rows if r.session == session]

    def describe(self, session: str, round_no: int) -> str:
        v = sf.break_view(self.recording, session, session, round_no)
        parts = sf._strip(v)
        order = sorted(((s, e, key) for key, spans in parts.items() for s, e, _ in spans))
        labels = {key: label for key, label, _ in sf.PARTS}
        where = (f"前缀断在 {v.break_block}(第 {v.break_at:,} 个 token)\n  打断处前:…{v.before!r}\n  打断处后:{v.after!r}…"
                 if v.break_at is not None else "整个 prompt 都从缓存读取")
        lines = [f"{session} 第 {round_no} 轮:prompt {v.prompt_tokens:,} token,实测读取 {v.cached:,}"
                 f"(计算器 {v.predicted:,}),重算 {v.recomputed:,}", where, "各部分(按 prompt 里的顺序):"]
        lines += [f"  {s:>6,}–{e:<6,} {labels[key]}" + ("  ← 打断处在这一段" if v.break_at is not None and s <= v.break_at < e else "")
                  for s, e, key in order]
        return "\n".join(lines)


class RequestApp(WidgetApp):
    TITLE = "T12 的请求浏览器"

    def __init__(self, lab: RequestLab | None = None):
        import ipywidgets as w

        self.lab = lab or RequestLab()
        style = {"description_width": "4em"}
        sessions = self.lab.sessions()
        # Options before the value: ipywidgets 8 leaves a Dropdown created without options at None.
        self.session = w.Dropdown(description="会话", options=sessions, value=sessions[0], style=style,
                                  layout=w.Layout(width="24em"))
        self.round = w.Dropdown(description="轮", options=self.lab.rounds(sessions[0]),
                                value=self.start_round(sessions[0]), style=style)
        self.panel = w.HTML()
        self.session.observe(lambda _: self._rounds(), "value")
        self.round.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([w.HBox([self.session, self.round]), self.panel])
        self._show()

    def start_round(self, session: str) -> int:
        """The round first shown: the first request after the agent wrote a new skill, else the last."""
        try:
            return sf.first_with_added_skill(self.lab.recording, session)
        except (ValueError, LookupError, StopIteration):
            return self.lab.rounds(session)[-1]

    def _rounds(self):
        self.round.options = self.lab.rounds(self.session.value)
        self.round.value = self.start_round(self.session.value)
        self._show()

    def _show(self):
        if self.round.value is None or self.session.value is None:
            return
        self.panel.value = panel(self.lab.describe(self.session.value, self.round.value))
