"""Lesson A6·4's lab (labs/a6/session-tree.ipynb): the T13 session tree and branch switching, live.

    trees = TreeLab()                        # the shipped t13-forks recording, file day1.jsonl
    print(trees.describe("fork-r7"))         # one leaf: its root-to-leaf path and its requests
    TreeApp(trees)                           # ipywidgets: pick a leaf

    switching = SwitchLab()                  # every shipped t13-switch-* recording
    print(switching.describe("one-slot"))    # each request: branch, prompt, measured and predicted hit, why
    SwitchApp(switching)                     # ipywidgets: pick a server setup

    sandbox = Sandbox()                      # a temporary copy of day1.jsonl
    sandbox.branch(entry_id, "another way")  # append a user message below any entry (no model call)
    print(sandbox.tree())                    # what `python -m miniagent session tree` prints for the copy
    SandboxApp(sandbox)                      # ipywidgets: pick an entry, write a message, see the tree grow

The plain-text methods are what nbval compares; the apps need a kernel (JupyterLab or Binder).
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from miniagent.session import Session
from miniagent.session_cli import fork_point_problem, render_tree

from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import load

from ..figures import session_tree as st
from ..exercises.a6_4 import switch_backs, truncated
from prefixlab.presenting.lab.app import WidgetApp, panel
from prefixlab.presenting.lab.wording import server_event, session_tree

FORKS = RECORDINGS / "t13-forks-smollm2-llamacpp"
SLOT_FLAGS = ("-np", "--cache-ram", "--slot-prompt-similarity")
# The server setups of the t13-switch-* recordings, as the toggle shows them (an unknown setup: its id)
SETUP_LABELS = {
    "one-slot": "一个槽位,无主机缓存",
    "host-cache": "一个槽位 + 主机缓存",
    "two-slots": "两个槽位 + 主机缓存",
    "two-slots-lru": "两个槽位,只按最久没用挑",
}


class TreeLab:
    """One session file of a recording as a tree: its leaves, and any leaf's path and requests."""

    def __init__(self, path: Path | str = FORKS, file: str = "day1.jsonl"):
        self.recording = load(path)
        self.tree = st.session_tree(self.recording, file)

    def leaves(self) -> list[str]:
        return [l.session for l in self.tree.leaves]

    def describe(self, session: str) -> str:
        leaf = next((l for l in self.tree.leaves if l.session == session), None)
        if leaf is None:
            raise ValueError(f"no leaf {session!r} in {self.tree.file}; leaves: {', '.join(self.leaves())}")
        requests = {r.entry_id: r for r in leaf.requests}
        lines = [st.leaf_summary(self.tree, leaf).replace("<br>", "\n").replace("<b>", "").replace("</b>", "")]
        if leaf.forked_at:
            lines.append(f"回退 = 截断的话,要删掉 {len(truncated(self.tree, session)):,} 个条目;在树里它们都还在。")
        lines.append("")
        for depth, entry_id in enumerate(leaf.path):
            entry = self.tree.entries[entry_id]
            mark = " ◆" if len(self.tree.children[entry_id]) > 1 else ""
            line = f"{depth:>3} {entry_id} {st.entry_text(entry)}{mark}"
            r = requests.get(entry_id)
            if r is not None:
                hit = "—" if r.measured is None else f"{r.measured:,}"
                line += f"  ← 本会话的请求:prompt {r.prompt_tokens:,},实测读取 {hit},计算器 {r.predicted:,}"
            lines.append(line)
        lines.append("(◆ = 分叉点)")
        return "\n".join(lines)


class TreeApp(WidgetApp):
    TITLE = "会话树浏览器"

    def __init__(self, lab: TreeLab | None = None):
        import ipywidgets as w

        self.lab = lab or TreeLab()
        self.leaf = w.Dropdown(description="叶子", options=self.lab.leaves(), layout=w.Layout(width="24em"))
        self.panel = w.HTML()
        self.leaf.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.leaf, self.panel])
        self._show()

    def _show(self):
        self.panel.value = panel(self.lab.describe(self.leaf.value))


class SwitchLab:
    """The branch-switching recordings, one per server setup."""

    def __init__(self, root: Path | str = RECORDINGS):
        recs = [load(p) for p in sorted(Path(root).glob("t13-switch-*")) if (p / "manifest.json").is_file()]
        self.recordings = {r.manifest["setup"]: r for r in recs}
        self.rows = {setup: st.switch_rows(r) for setup, r in self.recordings.items()}

    def setups(self) -> list[str]:
        return list(self.recordings)

    def describe(self, setup: str) -> str:
        if setup not in self.rows:
            raise ValueError(f"no recording for setup {setup!r}; setups: {', '.join(self.setups())}")
        rec = self.recordings[setup]
        flags = rec.provenance["server"]["flags"]
        last = {f: flags[i + 1] for i, f in enumerate(flags) if f in SLOT_FLAGS}  # a later flag wins
        shown = " ".join(f"{f} {v}" for f, v in last.items())
        lines = [f"{setup}:{rec.path.name},槽位和主机缓存的参数 {shown}(⇄ = 切回:前一个请求属于另一条分支)"]
        backs = {r.order for r, _ in switch_backs(self.rows[setup])}
        for r in self.rows[setup]:
            back = " ⇄" if r.order in backs else ""
            hit = "—" if r.measured is None else f"{r.measured:,}"
            lines.append(f"{r.order:>3} {r.session:<9} 第 {r.round:>2} 轮  prompt {r.prompt_tokens:>5,}  "
                         f"实测读取 {hit:>5}  计算器 {r.predicted:>5,}  来自 {r.source}{back}")
            lines += [f"      · {server_event(n)}" for n in r.notes]
        return "\n".join(lines)


class SwitchApp(WidgetApp):
    TITLE = "分支切换浏览器"

    def __init__(self, lab: SwitchLab | None = None):
        import ipywidgets as w

        self.lab = lab or SwitchLab()
        self.setup = w.ToggleButtons(description="服务器设置", options=[(SETUP_LABELS.get(s, s), s) for s in self.lab.setups()],
                                     style={"description_width": "6em", "button_width": "13em"})
        self.panel = w.HTML()
        self.setup.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.setup, self.panel])
        self._show()

    def _show(self):
        self.panel.value = panel(self.lab.describe(self.setup.value))


class Sandbox:
    """A temporary copy of a session file to grow branches on (user messages only, no model calls)."""

    def __init__(self, source: Path | str = FORKS / "day1.jsonl"):
        self._tmp = tempfile.TemporaryDirectory()  # /tmp/tmpXXXXXXXX: nbval sanitizes it
        self.path = Path(self._tmp.name) / Path(source).name
        shutil.copy(source, self.path)

    def session(self) -> Session:
        return Session.open(self.path)

    def entries(self) -> list[tuple[str, str]]:
        """(label, id) of every entry a new user message may follow."""
        session = self.session()
        return [(f"{e['id']} {st.entry_text(e)}", e["id"]) for e in session.entries
                if fork_point_problem(session, e["id"]) is None and e["type"] == "message"]

    def branch(self, entry_id: str, text: str) -> dict:
        """Append a user message below ``entry_id``: a new branch if the entry already has a child."""
        if not text.strip():
            raise ValueError("消息是空的,先写一句话")
        session = self.session()
        session.fork(entry_id)
        if problem := fork_point_problem(session, entry_id):
            raise ValueError(problem)
        return session.append("message", message={"role": "user", "content": text})

    def tree(self) -> str:
        """What ``python -m miniagent session tree`` prints for the copy, its words in Chinese."""
        return session_tree(render_tree(self.session()))


class SandboxApp(WidgetApp):
    TITLE = "会话树沙盒"

    def __init__(self, sandbox: Sandbox | None = None):
        import ipywidgets as w

        self.sandbox = sandbox or Sandbox()
        self.entry = w.Dropdown(description="接在", options=self.sandbox.entries(), layout=w.Layout(width="48em"))
        self.text = w.Text(description="新消息", value="Try another way.", layout=w.Layout(width="48em"))
        self.add = w.Button(description="追加(另起一条分支)", icon="code-branch")
        self.panel = w.HTML()
        self.status = w.HTML()
        self.add.on_click(lambda _: self._add())
        self.widget = w.VBox([self.entry, self.text, self.add, self.status, self.panel])
        self._show()

    def _add(self):
        try:
            new = self.sandbox.branch(self.entry.value, self.text.value)
        except ValueError as err:
            self.status.value = panel(f"不能追加:{err}")
            return
        # options first, then the value: the new entry, so a second 追加 grows the same branch
        before = self.entry.value
        options = self.sandbox.entries()
        ids = [entry_id for _, entry_id in options]
        self.entry.options = options
        self.entry.value = new["id"] if new["id"] in ids else before
        where = "它,再追加就沿这条分支往下写" if new["id"] in ids else "原来那个条目"
        self.status.value = panel(f"已追加条目 {new['id']};「接在」现在选的是{where}。")
        self._show()

    def _show(self):
        self.panel.value = panel(self.sandbox.tree(), wrap=False)
