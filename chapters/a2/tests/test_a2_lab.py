"""The A2 lab: the tool block of the chosen tools, counted offline; bad settings get a Chinese message."""
import json

import pytest

from chapters.a2.lab.tool_block import ToolBlockApp, ToolBlockLab
from chapters.a2.paths import TOOL_BLOCKS


@pytest.fixture(scope="module")
def lab():
    return ToolBlockLab()


def test_pi_s_four_tools_give_the_lesson_s_number(lab):
    pi = json.loads(TOOL_BLOCKS.read_text(encoding="utf-8"))["a2_2"]["sets"]["pi"]["block_tokens"]
    assert lab.describe(["read", "bash", "edit", "write"], "course", 20).startswith(
        f"课程服务器(SmolLM2,Qwen3 模板):4 个工具,工具块 {pi:,} 个 token / 请求")


def test_no_tool_is_no_block(lab):
    assert lab.describe([], "course").startswith("一个工具也没选")


@pytest.mark.parametrize("args, message", [((["grep", "sed"],), "没有这个工具:sed"), ((["read"], "big"), "模型只能是"),
                                           ((["read"], "course", 0), "请求数要是正整数")])
def test_bad_settings_are_refused_in_chinese(lab, args, message):
    with pytest.raises(ValueError, match=message):
        lab.describe(*args)


def test_the_app_shows_the_block_and_never_crashes(lab):
    app = ToolBlockApp(lab)
    app.show.value = True
    assert "# Tools" in app.panel.value
    app.names.value = ()
    assert "一个工具也没选" in app.panel.value


# -- A2·4's lab (labs/a2/mcp-tools.ipynb) ---------------------------------------------------------------
def test_server_lists_are_written_and_read_back():
    from chapters.a2.lab.mcp_list import PRESETS, format_servers, parse_servers

    for before, after in PRESETS.values():
        assert parse_servers(format_servers(before)) == before and parse_servers(format_servers(after)) == after
    assert parse_servers("  ") == []
    with pytest.raises(ValueError, match="一个工具也没写"):
        parse_servers("run_checks | | search")


def test_the_recording_panel_is_the_calculator_s_agreement_with_the_server():
    from chapters.a2.lab.mcp_list import recorded_requests

    text = recorded_requests("one-server-changed")
    assert "3 | 10 | 1,183 | 815 | 815 | 368  ← 工具列表变了:show_check" in text
    assert text.endswith("6 个请求,计算器与服务器一致的 6 个。")
    with pytest.raises(ValueError, match="录制里没有这个会话"):
        recorded_requests("three-servers")


def test_the_mcp_apps_follow_their_controls_and_show_bad_lists_as_messages():
    from chapters.a2.lab.mcp_list import PRESETS, MCPListApp, RecordingApp, describe

    app = MCPListApp()
    assert describe(*PRESETS[app.preset.value]).splitlines()[0] in app.out.value
    app.preset.value = "只调换两个工具的顺序"
    assert "换之前 901 个 token,换之后 901 个" in app.out.value
    app.after.value = "run_checks, run_checks"
    assert "lab-error" in app.out.value and "出现了两次" in app.out.value
    rec = RecordingApp()
    rec.session.value = "two-servers-changed"
    assert "| 745 | 745 |" in rec.out.value


def test_the_ways_lab_shows_each_way_from_the_recording():
    from chapters.a2.lab.ways import WaysApp, WaysLab
    lab = WaysLab()
    assert "没有(miniagent 平时的请求)" in lab.describe("auto", 1)
    assert "tool_choice" in lab.describe("required", 1)
    schema = lab.describe("schema", 1, show_schema=True)
    assert "response_format" in schema and "final_answer" in schema and "格式合格" in schema
    app = WaysApp(lab)
    app.way.value = "text"
    assert "正文解析" in app.panel.value


@pytest.mark.parametrize("args, message", [(("json",), "方式只能是"), (("auto", 0), "录制里的种子"), (("auto", True), "录制里的种子")])
def test_the_ways_lab_refuses_bad_settings_in_chinese(args, message):
    from chapters.a2.lab.ways import WaysLab
    with pytest.raises(ValueError, match=message):
        WaysLab().describe(*args)
