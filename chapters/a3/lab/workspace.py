"""The A3 lab (labs/a3/workspace.ipynb): paths, commands, environment variables, allow-list rules.

    lab = WorkspaceLab()                       # a temporary workspace laid out as in A3·1
    print(lab.path("../secret.txt"))           # plain join vs miniagent's check, on real files
    print(lab.command("never_ends", "miniagent", 1.0))   # one command case one way, measured
    print(lab.escapes())                       # every escape three ways, the sandbox row when bwrap runs here
    print(lab.env("GITHUB_TOKEN PATH"))        # which variables reach a command miniagent runs
    print(lab.rule("run_command: python tools/check.py", "python tools/check.py && ls"))
    WorkspaceApp(lab)                          # the same four, as ipywidgets (needs a kernel)

Everything is miniagent's own code on a temporary directory the lab removes when it is closed;
commands are the lesson's cases, each cleaned up after it ran. ``path``, ``env`` and ``rule`` are
plain text that does not depend on the machine (what nbval compares); ``command`` measures seconds.
"""
from __future__ import annotations

import shutil
import tempfile
import weakref
from pathlib import Path

from miniagent.approval import rule_allows

from chapters.a3 import escapes
from chapters.a3.exercises.a3_1 import command_env_for
from prefixlab.presenting.lab.app import WidgetApp, panel

OUTCOME = {"read outside": "读到了工作区外的文件", "read inside": "读到了工作区里的文件", "refused": "拒绝",
           "crashed": "抛出异常(循环里没人接住就是崩溃)"}
CASE_LABELS = {"never_ends": "永不结束", "prints_forever": "打印不停", "setsid_child": "setsid 逃出进程组",
               "reads_secret": "读环境里的密钥"}


class WorkspaceLab:
    """A workspace ``ws/`` in a temporary directory: app.py, a symlink ``docs`` to the directory above,
    and next to it secret.txt and ws-old/notes.txt (as in A3·1)."""

    def __init__(self):
        self.base = Path(tempfile.mkdtemp(prefix="a3-lab-"))
        self.root, _ = escapes.make_layout(self.base)
        weakref.finalize(self, shutil.rmtree, self.base, True)  # removed with the lab, even if close() is not called

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    def hide(self, text: str) -> str:
        return text.replace(str(self.base), "<tmp>")

    def path(self, path: str) -> str:
        lines = [f"路径:{path!r}(工作区是 <tmp>/ws)"]
        for way, label in (("plain join", "直接拼接 root / path"), ("miniagent", "miniagent 的 Workspace.resolve")):
            outcome, message = escapes.try_path(self.root, path, way)
            lines.append(f"{label}:{OUTCOME[outcome]}")
            lines.append(f"    {self.hide(message)[:200]}")
        return "\n".join(lines)

    def command(self, case: str, way: str, timeout: float = 1.0) -> str:
        if case not in escapes.COMMANDS:
            return f"没有这个情形:{case!r};可选:{', '.join(escapes.COMMANDS)}"
        if way not in escapes.WAYS:
            return f"没有这个做法:{way!r};可选:{', '.join(escapes.WAYS)}"
        if not 0.2 <= timeout <= 5:
            return f"超时请在 0.2 到 5 秒之间,收到 {timeout}"
        r = escapes.run_case(case, way, timeout)
        return "\n".join([
            f"命令:{escapes.COMMANDS[case]}",
            f"做法:{way},超时 {timeout:g} 秒",
            f"返回用了 {r.seconds:.2f} 秒;返回后还活着的进程 {r.survivors} 个(已清理,现在剩 {r.left} 个)",
            f"交回 {r.kept_bytes:,} 字节;调用期间 Python 的内存峰值 {r.peak_bytes / 1e3:,.0f} KB;"
            f"密钥{'进了' if r.leaked_secret else '没进'}输出",
            "输出的开头:", r.text[:300] or "(空)"])

    def escapes(self, timeout: float = 1.0) -> str:
        """A3·1's escape table, run now: every escape under subprocess.run, miniagent, miniagent + bwrap."""
        from miniagent.sandbox import Bwrap
        from miniagent.tools import ToolError
        try:
            Bwrap()
            note = "沙箱(bubblewrap)在这台机器上可用:最后一列是真的在沙箱里跑的。"
        except ToolError as err:
            note = f"沙箱在这台机器上不可用,所以最后一列写着\"沙箱不可用\"。原因:{err}"
        verdict = {"escaped": "逃出去了", "stopped": "挡住了", "unavailable": "沙箱不可用"}
        cell = {(r.escape, r.way): verdict[r.verdict] for r in escapes.escape_table_as_agent(timeout)}
        lines = [note, " | ".join(["逃逸", *escapes.ESCAPE_WAYS])]
        lines += [" | ".join([e, *(cell[e, w] for w in escapes.ESCAPE_WAYS)]) for e in escapes.ESCAPES]
        return "\n".join(lines)

    def env(self, names: str) -> str:
        wanted = [n for n in names.replace(",", " ").split() if n]
        if not wanted:
            return "写几个变量名,用空格隔开。"
        env = command_env_for({n: "x" for n in wanted})
        return "\n".join(f"{n}:{'传给命令' if n in env else '去掉'}" for n in wanted)

    def rule(self, rule: str, command: str) -> str:
        if not rule.strip() or not command.strip():
            return "写一条规则和一条命令。"
        tool = rule.partition(":")[0].strip()
        allowed = rule_allows(rule, "run_command", {"command": command}) if tool == "run_command" else False
        note = "" if tool == "run_command" else "(这条规则说的不是 run_command)"
        return f"规则 {rule!r}\n命令 {command!r}\n{'不问人,直接执行' if allowed else '要问人'}{note}"


class WorkspaceApp(WidgetApp):
    TITLE = "工作区试验台"

    def __init__(self, lab: WorkspaceLab | None = None):
        import ipywidgets as w

        self.lab = lab or WorkspaceLab()
        style = {"description_width": "6em"}
        self.path_box = w.Combobox(description="路径", style=style, value="../secret.txt", ensure_option=False,
                                   options=["../secret.txt", "docs/secret.txt", "app.py", "../ws-old/notes.txt",
                                            "docs/ws/app.py"])
        self.path_out = w.HTML()
        self.case = w.Dropdown(description="命令", style=style, value="never_ends",
                               options=[(label, key) for key, label in CASE_LABELS.items()])
        self.way = w.ToggleButtons(description="做法", style=style, options=list(escapes.WAYS), value="miniagent")
        self.timeout = w.FloatSlider(description="超时(秒)", style=style, min=0.2, max=5, step=0.2, value=1.0,
                                     continuous_update=False)
        self.command_out = w.HTML()
        self.env_box = w.Text(description="变量名", style=style, value="OPENAI_API_KEY PATH SSH_AUTH_SOCK",
                              layout=w.Layout(width="60%"))
        self.env_out = w.HTML()
        self.rule_box = w.Text(description="规则", style=style, value="run_command: python tools/check.py",
                               layout=w.Layout(width="60%"))
        self.cmd_box = w.Text(description="命令", style=style, value="python tools/check.py; rm -rf .",
                              layout=w.Layout(width="60%"))
        self.rule_out = w.HTML()
        self.path_box.observe(lambda _: self._path(), "value")
        for control in (self.case, self.way, self.timeout):
            control.observe(lambda _: self._command(), "value")
        self.env_box.observe(lambda _: self._env(), "value")
        for control in (self.rule_box, self.cmd_box):
            control.observe(lambda _: self._rule(), "value")
        self.widget = w.VBox([w.HTML("<b>路径</b>"), self.path_box, self.path_out,
                              w.HTML("<b>命令</b>"), self.case, self.way, self.timeout, self.command_out,
                              w.HTML("<b>交给命令的环境</b>"), self.env_box, self.env_out,
                              w.HTML("<b>允许清单的一条规则</b>"), self.rule_box, self.cmd_box, self.rule_out])
        self._path(), self._command(), self._env(), self._rule()

    def _path(self):
        self.path_out.value = panel(self.lab.path(self.path_box.value))

    def _command(self):
        self.command_out.value = panel(self.lab.command(self.case.value, self.way.value, self.timeout.value))

    def _env(self):
        self.env_out.value = panel(self.lab.env(self.env_box.value))

    def _rule(self):
        self.rule_out.value = panel(self.lab.rule(self.rule_box.value, self.cmd_box.value))
