"""Lesson A6·1's lab (labs/a6/instruction-files.ipynb): the T11 requests and the AGENTS.md loader, live.

    requests = RequestLab()                     # the shipped T11 recording
    print(requests.describe("message-day1", 9))  # one request: parts, the rule, hit, break, text
    RequestApp(requests)                         # ipywidgets: pick a variant and a request

    loader = LoaderLab()                         # a temporary copy of data/a6/loader-tree (with .git)
    print(loader.describe("services/api", 1024)) # what miniagent loads from there under that cap
    LoaderApp(loader)                            # ipywidgets: directory, cap, and edit any AGENTS.md

The plain-text ``describe`` methods are what nbval compares; the apps need a kernel (JupyterLab or
Binder). ``LoaderLab(path)`` opens your own repository instead (read-only unless you save a file).
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from miniagent.agents_md import AGENTS_MD, AGENTS_MD_CAP, agents_md_files, read_agents_md

from prefixlab.cache import calculator, composition
from chapters.a6.paths import LOADER_TREE
from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import load

from ..figures.agents_md_explorer import working_directories
from prefixlab.presenting.lab.app import WidgetApp, panel
from ..figures.rule_placement import PART_LABELS, VARIANT_LABELS, request_rows, variants

T11 = RECORDINGS / "t11-smollm2-llamacpp"
CONTEXT_CHARS = 60  # characters shown on each side of the rule in a request's rendered text


class RequestLab:
    """The T11 requests: one row per request, and a text view of any one of them."""

    def __init__(self, path: Path | str = T11):
        self.recording = load(path)
        self.rows = request_rows(self.recording)
        self.rule = self.recording.manifest["rule"]

    def variants(self) -> list[str]:
        return variants(self.rows)

    def sessions(self, variant: str) -> list[str]:
        return list(dict.fromkeys(r.session for r in self.rows if r.variant == variant))

    def requests(self, session: str) -> list[tuple[str, int]]:
        """(label, seq) of every request of a session, in order."""
        return [(r.label, r.seq) for r in self.rows if r.session == session]

    def describe(self, session: str, seq: int) -> str:
        r = next(x for x in self.rows if x.seq == seq and x.session == session)
        att = calculator.prepare(self.recording).attributions[seq]
        lines = [f"{session} {r.label}:prompt {r.prompt_tokens:,} token,实测读取 {r.cached_tokens:,}"
                 f"(计算器 {r.predicted:,}),打断处:{r.break_words}",
                 "组成:" + ",".join(f"{PART_LABELS[p]} {n:,}" for p, n in r.parts.items() if n)]
        found = composition.find(att, self.rule, self.recording.calls[seq].request["messages"])
        if not found:
            lines.append("规矩:不在这个请求里")
        for o in found:
            start = att.text.find(self.rule, att.offsets[o.start][0])
            before = att.text[max(0, start - CONTEXT_CHARS):start]
            after = att.text[start + len(self.rule):start + len(self.rule) + CONTEXT_CHARS]
            lines.append(f"规矩:在 {o.block} 块,第 {o.start:,}–{o.end:,} 个 token")
            lines.append(f"  …{before!r} [规矩] {after!r}…")
        return "\n".join(lines)


class RequestApp(WidgetApp):
    TITLE = "T11 的请求浏览器"

    def __init__(self, lab: RequestLab | None = None):
        import ipywidgets as w

        self.lab = lab or RequestLab()
        style = {"description_width": "5em"}
        variants = self.lab.variants()
        self.variant = w.Dropdown(description="变体", style=style, layout=w.Layout(width="36em"),
                                  options=[(VARIANT_LABELS.get(v, v), v) for v in variants], value=variants[0])
        # Options before the value: ipywidgets 8 leaves a Dropdown created without options at None.
        sessions = self.lab.sessions(self.variant.value)
        self.session = w.Dropdown(description="会话", style=style, options=sessions, value=sessions[0])
        requests = self.lab.requests(self.session.value)
        self.request = w.Dropdown(description="请求", style=style, options=requests,
                                  value=self.start_request(self.session.value))
        self.panel = w.HTML()
        self.variant.observe(lambda _: self._sessions(), "value")
        self.session.observe(lambda _: self._requests(), "value")
        self.request.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.variant, w.HBox([self.session, self.request]), self.panel])
        self._show()

    def start_request(self, session: str) -> int:
        """The request first shown for a session: the one right after a compaction (where the rule
        may vanish), else the last one."""
        labels = self.lab.requests(session)
        after = [seq for (label, _), (_, seq) in zip(labels, labels[1:]) if label.endswith("压缩")]
        return (after or [labels[-1][1]])[0]

    def _sessions(self):
        sessions = self.lab.sessions(self.variant.value)
        self.session.options = sessions
        self.session.value = sessions[0]
        self._requests()

    def _requests(self):
        self.request.options = self.lab.requests(self.session.value)
        self.request.value = self.start_request(self.session.value)
        self._show()

    def _show(self):
        if self.request.value is None or self.session.value is None:
            return
        self.panel.value = panel(self.lab.describe(self.session.value, self.request.value))


class LoaderLab:
    """miniagent's AGENTS.md loader on a directory tree you can edit (a temporary copy by default)."""

    def __init__(self, path: Path | str | None = None):
        if path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="agents-md-lab-")
            self.root = Path(self._tmp.name) / "repo"
            shutil.copytree(LOADER_TREE, self.root)
            (self.root / ".git").mkdir()
        else:
            self.root = Path(path).resolve()

    def directories(self) -> list[str]:
        return working_directories(self.root)

    def files(self) -> list[str]:
        return [p.relative_to(self.root).as_posix() for p in sorted(self.root.rglob(AGENTS_MD))
                if ".git" not in p.parts]

    def write(self, relative: str, text: str) -> None:
        """Replace (or create) one AGENTS.md of the tree."""
        path = self.root / relative
        if path.name != AGENTS_MD:
            raise ValueError(f"only {AGENTS_MD} files can be written here, not {relative}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def read(self, relative: str) -> str:
        return (self.root / relative).read_text(encoding="utf-8")

    def describe(self, cwd: str, cap: int = AGENTS_MD_CAP) -> str:
        workspace = self.root / cwd
        root, paths = agents_md_files(workspace)
        text = read_agents_md(workspace, cap=cap)
        size = len(read_agents_md(workspace, cap=10**9).encode("utf-8"))
        order = " → ".join(p.relative_to(root).as_posix() for p in paths) or "(没有 AGENTS.md)"
        cut = f",截掉 {size - cap:,} 字节" if size > cap else ",没有截断"
        return (f"从 {cwd} 启动:仓库根是 {root.name}/;加载 {order}\n"
                f"拼好的文本 {size:,} 字节,上限 {cap:,}{cut}\n\n{text}")


class LoaderApp(WidgetApp):
    TITLE = "AGENTS.md 加载器"

    def __init__(self, lab: LoaderLab | None = None):
        import ipywidgets as w

        self.lab = lab or LoaderLab()
        style = {"description_width": "6em"}
        self.cwd = w.Dropdown(description="工作目录", options=self.lab.directories(), style=style)
        self.cap = w.IntSlider(description="字节上限", min=64, max=4096, step=64, value=4096, style=style,
                               continuous_update=False, layout=w.Layout(width="36em"))
        self.file = w.Dropdown(description="编辑文件", options=self.lab.files(), style=style)
        self.editor = w.Textarea(layout=w.Layout(width="48em", height="12em"))
        self.save = w.Button(description="保存并重读", icon="save")
        self.result = w.HTML()
        self.cwd.observe(lambda _: self._show(), "value")
        self.cap.observe(lambda _: self._show(), "value")
        self.file.observe(lambda _: self._load_file(), "value")
        self.save.on_click(lambda _: self._save())
        self.widget = w.VBox([w.HBox([self.cwd, self.cap]), self.result,
                              w.HTML("<b>改一份 AGENTS.md 试试</b>(改的是临时副本,不动仓库里的文件):"),
                              self.file, self.editor, self.save])
        self._load_file()
        self._show()

    def _load_file(self):
        if self.file.value:
            self.editor.value = self.lab.read(self.file.value)

    def _save(self):
        self.lab.write(self.file.value, self.editor.value)
        self._show()

    def _show(self):
        self.result.value = panel(self.lab.describe(self.cwd.value, self.cap.value))
