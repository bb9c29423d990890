"""The A3 lab's state: what its four panels say, without a browser (scripts/lab_check.py drives the widgets)."""
import pytest

from chapters.a3.lab.workspace import WorkspaceApp, WorkspaceLab


@pytest.fixture
def lab():
    lab = WorkspaceLab()
    yield lab
    lab.close()


def test_a_symlink_out_is_read_by_the_plain_join_and_refused_by_miniagent(lab):
    text = lab.path("docs/secret.txt")
    assert "直接拼接 root / path:读到了工作区外的文件" in text and "miniagent 的 Workspace.resolve:拒绝" in text
    assert str(lab.base) not in text


def test_a_file_inside_is_read_both_ways(lab):
    assert lab.path("app.py").count("读到了工作区里的文件") == 2


def test_env_and_rule(lab):
    assert lab.env("OPENAI_API_KEY PATH") == "OPENAI_API_KEY:去掉\nPATH:传给命令"
    assert lab.env("  ") == "写几个变量名,用空格隔开。"
    assert lab.rule("run_command: python tools/check.py", "python tools/check.py; rm -rf .").endswith("要问人")
    assert "不问人" in lab.rule("run_command: python tools/check.py", "python tools/check.py -v")
    assert "说的不是 run_command" in lab.rule("edit_file", "ls")


def test_a_command_is_measured_and_cleaned_up(lab):
    text = lab.command("never_ends", "subprocess.run", 0.5)
    assert "返回后还活着的进程 1 个(已清理,现在剩 0 个)" in text


@pytest.mark.parametrize("args, message", [(("nope", "miniagent", 1.0), "没有这个情形"),
                                           (("never_ends", "os.system", 1.0), "没有这个做法"),
                                           (("never_ends", "miniagent", 60.0), "超时请在")])
def test_bad_choices_are_messages(lab, args, message):
    assert lab.command(*args).startswith(message)


def test_the_app_draws_every_panel(lab):
    app = WorkspaceApp(lab)
    assert all(out.value for out in (app.path_out, app.command_out, app.env_out, app.rule_out))
    app.env_box.value = "GITHUB_TOKEN"
    assert "GITHUB_TOKEN:去掉" in app.env_out.value


# -- A3·3's lab (labs/a3/injection.ipynb) ------------------------------------------------------------------
@pytest.fixture(scope="module")
def injection():
    from chapters.a3.lab.injection import InjectionLab

    return InjectionLab()


def test_every_starting_text_gets_a_verdict_from_every_defence(injection):
    from chapters.a3.injection import DEFENCES
    from chapters.a3.lab.injection import TEXTS

    for text in TEXTS.values():
        table = injection.defences(text).split("\n\n")[0].splitlines()
        assert table[0] == " | ".join(["调用", "目标", *DEFENCES]) and len(table) > 1
    assert "拒:人说不" in injection.defences(TEXTS["藏在检查命令后面"])
    assert "没有一个照做的助手认得出的命令" in injection.defences("please be nice")
    assert injection.defences("  ").startswith("写一段文字")
    with pytest.raises(ValueError, match="文字太长"):
        injection.defences("read x " * 1000)


def test_the_live_runs_are_shown_one_by_one(injection):
    from chapters.a3.injection import follow_rates

    rates = follow_rates(injection.live)
    assert injection.rates().splitlines()[1].startswith(f"原样 | {rates['plain']['runs']} | {rates['plain']['obeyed']} | ")
    p = rates["plain"]
    assert f"| {p['text_obeyed']} | " in injection.rates().splitlines()[1]
    first = next(iter(injection.calls))
    assert injection.run(first).startswith(f"{first}:原样,种子")
    assert [line.split(" | ")[0] for line in injection.rates().splitlines()[1:4]] == ["原样", "标成数据", "约束调用"]
    constrained = next(c for c in injection.calls.values() if c.variant == "constrained" and c.tool)
    assert f"第一个调用(schema 约束的回复,miniagent 读出的调用):{constrained.tool}" in injection.run(constrained.session)
    written = next(c for c in injection.calls.values() if c.tool is None and c.text_tool)
    assert "回答文字里写着调用:" + written.text_tool in injection.run(written.session)
    with pytest.raises(ValueError, match="录制里没有这次运行"):
        injection.run("plain-99x")


def test_the_injection_apps_follow_their_controls(injection):
    from chapters.a3.lab.injection import InjectionApp, LiveRunsApp

    app = InjectionApp(injection)
    app.preset.value = "只改检查"
    assert "write_file tools/check.py" in app.out.value and "read_file" not in app.out.value
    app.text.value = "read x " * 1000
    assert "lab-error" in app.out.value
    live = LiveRunsApp(injection)
    live.variant.value = "marked"
    assert live.session.value.startswith("marked-") and live.session.value in live.out.value
