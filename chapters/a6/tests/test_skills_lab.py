"""Lesson A6·3's lab: the count view and the editable skills folder, as plain text."""
from __future__ import annotations

import pytest

from chapters.a6.lab.skills import CountLab, FolderLab


def test_count_view_matches_the_curve():
    lab = CountLab(base_tokens=100)
    last = len(lab.curve) - 1
    text = lab.describe(last)
    assert f"全文内联:{lab.curve[-1].inline:,} token(超出窗口" in text
    assert f"只放索引(描述上限 60 字符):{lab.curve[-1].index:,} token" in text
    assert lab.index_tokens(last, 1024) > lab.index_tokens(last, 60) == lab.curve[-1].index
    assert lab.index_tokens(0, 1024) == 100
    assert "放得下" in lab.describe(1)
    with pytest.raises(ValueError):
        lab.describe(last + 1)


def test_folder_lab_edits_a_copy_and_reports_bad_files():
    lab = FolderLab()
    before = lab.describe()
    assert "run-checks" in before and "没有加载" not in before
    lab.write("broken", "no front matter here\n")
    lab.write("notes", "---\nname: notes\ndescription: How to keep short notes of a session.\n---\n\nWrite them.\n")
    text = lab.describe()
    assert "没有加载 skills/broken/SKILL.md:文件开头不是 front matter 的 '---' 行" in text and "- notes: How to keep short notes" in text
    with pytest.raises(ValueError):
        lab.write("../escape", "x")


def test_request_view_names_the_break():
    from chapters.a6.lab.skills import RequestLab

    lab = RequestLab()
    assert lab.sessions() == ["inline-day1", "index-day1", "added-stable-day1", "added-volatile-day1"]
    text = lab.describe("added-stable-day1", 5)
    assert "前缀断在 skills" in text and "← 打断处在这一段" in text
    last = lab.rounds("index-day1")[-1]
    assert "index-day1 第" in lab.describe("index-day1", last)
