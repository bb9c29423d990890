"""The shipped A4-3 recording (lesson A4·3), offline: what the lesson says it shows.

Each shape of the history on its own server, the same ten scripted rounds; the message list reads every
previous request back whole; the re-rendered transcript loses only its closing part until an old entry is
clipped, then breaks inside the transcript; with the notes block every follow-up breaks at the notes; the
llama.cpp rule predicts every request; the census adds up to the prompt; the figures need no kernel.
"""
import pytest

from prefixlab.cache import calculator
from chapters.a4.figures import rewrite_history as charts
from chapters.a4.paths import A43_RECORDING
from prefixlab.recording.format import load


@pytest.fixture(scope="module")
def rec():
    return load(A43_RECORDING)


@pytest.fixture(scope="module")
def rows(rec):
    return charts.round_rows(rec)


def test_three_shapes_one_slot_each_on_a_fresh_server(rec):
    assert rec.manifest["experiment"] == "A4-3" and rec.complete
    flags = rec.provenance["server"]["flags"]
    assert flags[flags.index("-np") + 1] == "1"
    sessions = rec.manifest["sessions"]
    assert [s["shape"] for s in sessions] == list(charts.SHAPES)
    assert {len(rec.session_calls(s["id"])) for s in sessions} == {10}
    epochs = [{c.epoch for c in rec.session_calls(s["id"])} for s in sessions]
    assert epochs == [{0}, {1}, {2}]


def test_the_llamacpp_rule_predicts_every_request(rec):
    rows = calculator.analyze(rec)
    assert [(r.session, r.round, r.read, r.measured) for r in rows if r.read != r.measured] == []


def test_the_shapes_send_the_same_conversation(rec):
    from miniagent.variants.transcript import render

    plain = rec.session_calls("messages")
    for shape, notes in (("transcript", False), ("transcript-notes", True)):
        for a, b in zip(plain, rec.session_calls(shape)):
            assert render(a.request["messages"], notes) == b.request["messages"], (shape, a.round)
            assert a.request["tools"] == b.request["tools"]


def test_where_each_shape_breaks(rows):
    msg, tr, notes = (charts.of(rows, s) for s in charts.SHAPES)
    assert all(b.measured == a.prompt_tokens and b.where == "—" for a, b in zip(msg, msg[1:]))
    places = [r.where for r in tr[1:]]
    first_clip = next(i for i, p in enumerate(places) if p.startswith("记录里"))
    assert first_clip >= 3 and set(places[:first_clip]) == {"记录末尾"}  # nothing old rewritten yet
    assert all(p.startswith("记录里") for p in places[first_clip:])
    assert {r.where for r in notes[1:]} == {"笔记块"}
    # the system prompt and the tools, plus the note lines that did not change (only while there are
    # fewer notes than the block keeps); from then on the same number every round
    from miniagent.variants.transcript import NOTES

    settled = [r.measured for r in notes[NOTES + 1:]]
    assert max(settled) - min(settled) < 10 and min(r.measured for r in notes[1:]) == min(settled)  # within a note's first words
    assert notes[-1].recomputed > msg[-1].recomputed


def test_the_census_adds_up_to_the_prompt_and_tool_results_weigh_most(rec, rows):
    last = charts.census_of_call(rec, "messages")
    assert sum(last.values()) == charts.of(rows, "messages")[-1].prompt_tokens
    first = charts.census_of_call(rec, "messages", 1)
    assert first["tool_results"] == 0 and last["tool_results"] > last["history"]
    fig = charts.census_figure({"a": first, "b": last})
    assert [t.name for t in fig.data] == [charts.CENSUS_LABELS[p] for p in charts.CENSUS_PARTS]


def test_the_figure_has_both_views_and_needs_no_kernel(rows):
    fig = charts.rounds_figure(rows)
    assert len(fig.data) == len(charts.SHAPES) * 2 * 2
    assert [b.label for b in fig.layout.updatemenus[0].buttons] == ["每轮重算多少", "每轮读取多少"]
    assert sum(1 for t in fig.data if t.visible) == len(charts.SHAPES) * 2
    assert all(len(t.x) == 10 for t in fig.data)
