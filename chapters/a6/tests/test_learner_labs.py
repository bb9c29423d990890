"""Chapter A6's labs as a learner uses them (issue 34): first selections, Chinese text, controls that
keep their values, labels, scroll panels. The browser side is scripts/lab_check.py."""
from __future__ import annotations

import json

import pytest

from chapters.a6.lab.instruction_files import RequestApp as T11App
from chapters.a6.lab.retrieval import OWN, RetrievalApp
from chapters.a6.lab.session_tree import SandboxApp, SwitchApp, SwitchLab, TreeApp
from chapters.a6.lab.skills import CountApp, FolderApp, FolderLab, RequestApp as T12App
from prefixlab.paths import REPO_ROOT
from prefixlab.presenting.lab.app import NO_KERNEL, WidgetApp, panel

LABS = REPO_ROOT / "labs" / "a6"


def test_request_browsers_start_on_a_request():
    t11 = T11App()
    assert None not in (t11.variant.value, t11.session.value, t11.request.value)
    assert t11.request.label == "D1·8"  # the request right after the compaction
    assert t11.session.value in t11.panel.value and "实测读取" in t11.panel.value
    t11.variant.value = t11.variant.options[1][1]
    assert t11.session.value == t11.session.options[0] and t11.request.value is not None
    assert t11.session.value in t11.panel.value
    t12 = T12App()
    assert t12.session.value and t12.round.value is not None and "实测读取" in t12.panel.value
    t12.session.value = "added-stable-day1"
    assert t12.round.value == 5 and "added-stable-day1 第 5 轮" in t12.panel.value


@pytest.mark.parametrize("notebook, wanted", [("instruction-files.ipynb", ("变体", "会话", "请求")),
                                              ("skills.ipynb", ("会话", "轮"))])
def test_the_saved_widget_state_shows_a_selection(notebook, wanted):
    nb = json.loads((LABS / notebook).read_text(encoding="utf-8"))
    models = nb["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"].values()
    dropdowns = {m["state"].get("description"): m["state"] for m in models if m["model_name"] == "DropdownModel"}
    for name in wanted:
        assert dropdowns[name]["index"] is not None, name


def test_server_events_and_the_sandbox_tree_are_chinese():
    lab = SwitchLab()
    text = "\n".join(lab.describe(s) for s in lab.setups())
    for english in ("picked", "least recently", "host cache", "save slot", "load host"):
        assert english not in text, english
    assert "挑中槽位 0:没有足够相似的槽位,挑最久没用的那个" in text
    tree = SandboxApp().sandbox.tree()
    assert "个叶子" in tree and "当前叶子" in tree and "第 1 条分支(共 2 条)" in tree
    assert "branch 1 of" not in tree and "current leaf" not in tree
    folder = FolderLab()
    folder.write("broken", "no front matter\n")
    assert "没有加载 skills/broken/SKILL.md:文件开头不是 front matter 的 '---' 行" in folder.describe()


def test_the_sandbox_keeps_growing_the_branch_it_started():
    app = SandboxApp()
    app.entry.value = app.entry.options[3][1]
    app.add.click()
    new = app.entry.value
    assert new != app.entry.options[0][1] and "已追加条目" in app.status.value and new in app.status.value
    app.text.value = "And once more."
    app.add.click()
    assert app.sandbox.session().entries[-1]["parentId"] == new  # the second message follows the first
    app.text.value = "  "
    app.add.click()
    assert "不能追加:消息是空的" in app.status.value


def test_labelled_requests_and_the_request_box_agree():
    app = RetrievalApp()
    first = app.lab.tasks[0].text
    assert app.preset.value == first == app.query.value  # not "(自己写)" while the box holds a labelled task
    app.query.value = "Where do I add a new unit?"
    assert app.preset.value == "" and app.preset.label == OWN and "Where do I add" in app.panel.value
    app.preset.value = app.lab.tasks[2].text
    assert app.query.value == app.lab.tasks[2].text
    app.preset.value = ""
    assert app.query.value == "" and "先写一句请求" in app.panel.value
    app.query.value = " " + first + " "
    assert app.preset.value == first


def test_controls_are_labelled_and_long_text_fits():
    switch = SwitchApp()
    assert all(label != value for label, value in switch.setup._options_full if value in
               ("one-slot", "host-cache", "two-slots", "two-slots-lru"))
    assert switch.setup.description == "服务器设置"
    retrieval = RetrievalApp()
    assert retrieval.strategy.description == "做法" and retrieval.preset.layout.width == "100%"


def test_text_panels_scroll_and_never_split_words():
    html = panel("units/convert.py " * 500)
    assert "max-height" in html and "overflow:auto" in html and "word-break:normal" in html
    assert "overflow-wrap:normal" in html and "white-space:pre-wrap" in html
    assert "white-space:pre;" in panel("├─ tree", wrap=False)
    for app, attr in ((T11App(), "panel"), (TreeApp(), "panel"), (SwitchApp(), "panel"), (SandboxApp(), "panel"),
                      (CountApp(), "panel"), (FolderApp(), "result"), (RetrievalApp(), "panel")):
        assert 'class="lab-panel"' in getattr(app, attr).value, type(app).__name__


def test_before_a_run_the_cell_says_to_run_it():
    assert "在 JupyterLab 里运行这个单元格" in NO_KERNEL
    for cls in WidgetApp.__subclasses__():
        assert cls.TEXT == f"{cls.TITLE}({NO_KERNEL})"
    for notebook in LABS.glob("*.ipynb"):
        nb = json.loads(notebook.read_text(encoding="utf-8"))
        texts = ["".join(o["data"]["text/plain"]) for c in nb["cells"] if c["cell_type"] == "code"
                 for o in c.get("outputs", []) if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        assert texts and all(NO_KERNEL in t for t in texts), notebook.name
