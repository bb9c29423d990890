"""Side lesson A6·R's lab: what BM25 picks for a request, why, what it costs, and what a labelled request misses."""
from __future__ import annotations

import html

import pytest

from miniagent.variants.select_memory import TOP_K
from chapters.a6.figures import recall
from chapters.a6.lab.retrieval import MAX_K, RetrievalApp, RetrievalLab


@pytest.fixture(scope="module")
def lab():
    return RetrievalLab()


def test_picks_are_miniagents_and_say_why(lab):
    query = lab.task("add-kelvin").text
    picks = lab.picks(query, TOP_K)
    ids, _ = recall.carried("select", lab.notes, query, TOP_K)
    assert [p.note for p in picks] == ids  # the same notes miniagent's strategies carry
    assert [p.score for p in picks] == sorted((p.score for p in picks), reverse=True)
    assert all(p.shared and set(p.shared) <= set(lab.words(query)) for p in picks)


def test_a_labelled_request_names_what_it_misses_and_why(lab):
    text = lab.describe(lab.task("verify-change").text)
    assert "没带上:checks-command" in text and "k 再大也挑不到它" in text
    assert "一条不缺" in lab.describe(lab.task("run-checks").text)


def test_the_two_strategies_write_the_notes_differently(lab):
    from miniagent.prompt import MEMORY_HEADER
    from miniagent.variants.retrieve_memory import RECALL_HEADER

    query = lab.task("run-checks").text
    assert MEMORY_HEADER in lab.describe(query, strategy="select")
    assert RECALL_HEADER in lab.describe(query, strategy="retrieve")


def test_no_shared_word_no_note_and_bad_input_is_refused(lab):
    text = lab.describe("帮我跑一下这个仓库的检查")
    assert "一个也没有" in text and "挑中 0 条" in text
    assert lab.describe("   ") == "先写一句请求。"
    with pytest.raises(ValueError):
        lab.describe("checks", strategy="frozen")
    with pytest.raises(ValueError):
        lab.picks("checks", MAX_K + 1)
    with pytest.raises(KeyError):
        lab.task("nope")


def test_the_app_shows_the_default_request_and_reacts(lab):
    app = RetrievalApp(lab)
    assert html.escape(lab.tasks[0].text) in app.panel.value
    app.k.value = 1
    assert "k = 1" in app.panel.value
    app.preset.value = lab.task("numpy").text
    assert app.query.value == lab.task("numpy").text and "no-deps" in app.panel.value
