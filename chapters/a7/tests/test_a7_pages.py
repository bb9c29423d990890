"""Chapter A7's pages and recordings: the chapter page lists every A7 recording; every exercise checker
accepts the right answer and hints without the number otherwise; no output of a lesson prints an
answer before its exercise; the recordings hold what the pages say (children linked, predicted exactly)."""
import json
import re
from pathlib import Path

import nbformat
import pytest

from chapters.a7.exercises import a7_1, a7_2, a7_3
from chapters.a7.figures import delegation as d
from miniagent.children import child_entries, open_child
from miniagent.session import Session, usage_ledger
from prefixlab.cache import calculator
from prefixlab.paths import RECORDINGS
from prefixlab.presenting.answers import ASK
from prefixlab.recording.experiments import experiments
from prefixlab.recording.format import find_recordings, load

BOOK = Path(__file__).resolve().parents[3] / "book" / "a7"
EXPLORE = load(RECORDINGS / "a7-1-explore-smollm2-llamacpp")
SETUPS = {"one-slot": "a7-2-child-one-slot", "host-cache": "a7-2-child-host-cache", "two-slots": "a7-2-child-two-slots"}
CHILD = {setup: load(RECORDINGS / name) for setup, name in SETUPS.items()}
EFFECTS = [d.child_effect(CHILD[s], m) for s in SETUPS for m in ("fresh", "fork")]
LIMITS = load(RECORDINGS / "a7-3-limits-smollm2-llamacpp")


def outputs_before(page: str, marker: str) -> str:
    """The outputs of the code cells above the first code cell containing ``marker``."""
    shown = []
    for cell in nbformat.read(BOOK / page, as_version=4).cells:
        if cell.cell_type == "code" and marker in cell.source:
            return json.dumps(shown, ensure_ascii=False)
        if cell.cell_type == "code":
            shown.extend(cell.outputs)
    raise AssertionError(f"{page}: no code cell with {marker!r}")


def test_every_a7_recording_is_in_the_chapter_table():
    names = {exp.recorder.experiment for exp in experiments().values() if exp.chapter == "a7"}
    recordings = [p.name for p in find_recordings()
                  if json.loads((p / "manifest.json").read_text(encoding="utf-8"))["experiment"] in names]
    assert len(recordings) == 9
    nb = nbformat.read(BOOK / "index.ipynb", as_version=4)
    table = next(c for c in nb.cells if c.cell_type == "code" and "LESSON_OF" in c.source)
    shown = "".join(json.dumps(o.get("data", {}), ensure_ascii=False) for o in table.outputs)
    assert [r for r in recordings if f"data/recordings/{r}" not in shown] == []


@pytest.mark.parametrize("rec", [EXPLORE, *CHILD.values(), LIMITS], ids=lambda r: r.path.name)
def test_every_request_children_included_is_predicted_exactly(rec):
    rows = calculator.analyze(rec)
    assert rows and all(r.ok for r in rows)
    assert any(rec.session_info(r.session)["kind"] == "child" for r in rows)


@pytest.mark.parametrize("rec", [EXPLORE, *CHILD.values(), LIMITS], ids=lambda r: r.path.name)
def test_each_child_file_is_linked_to_its_parents_entry_and_its_usage_adds_up(rec):
    for info in rec.manifest["sessions"]:
        if info["kind"] != "child":
            continue
        parent = Session.open(rec.path / rec.session_info(info["child_of"]["session"])["file"])
        [entry] = [e for e in child_entries(parent) if e["id"] == info["child_of"]["entry"]]
        child = open_child(parent, entry)
        assert entry["path"] == info["file"] and entry["status"] == ("stopped" if info.get("variant") == "capped" else "done")
        assert child.entries[0]["parentSession"] == {"path": parent.path.name, "entryId": entry["id"]}
        assert usage_ledger(child.entries) == entry["usage"]
        assert entry["usage"]["calls"] == len(rec.session_calls(info["id"]))


def test_the_delegating_parent_never_compacts_and_the_child_does():
    parent = d.totals(d.requests(EXPLORE, "delegate"), roles=("parent",))
    child = d.totals(d.requests(EXPLORE, "delegate"), roles=("child",))
    alone = d.totals(d.requests(EXPLORE, "alone"))
    assert parent["summaries"] == 0 < child["summaries"] and alone["summaries"] >= 2
    assert parent["peak"] < alone["peak"]


def test_a_fork_reads_the_parents_request_and_a_fresh_child_only_the_system_turn():
    for e in EFFECTS:
        if e.mode == "fork":
            assert e.child_first.measured >= e.parent_before.prompt_tokens - a7_2.TOKENS
        else:
            # only the system turn (system prompt and tools); the parent, back, reads just as little
            assert e.child_first.measured == e.parent_back.measured < e.parent_before.prompt_tokens - 100


def _answers():
    return {
        "a7-1-when-to-delegate.ipynb": [
            (lambda g: a7_1.check_compactions(EXPLORE, g), d.totals(d.requests(EXPLORE, "alone"))["summaries"],
             "check_compactions"),
            (lambda g: a7_1.check_peak_share(EXPLORE, g), a7_1.peak_share(EXPLORE), "check_peak_share")],
        "a7-2-fresh-or-fork.ipynb": [
            (lambda g: a7_2.check_fork_child_hit(CHILD["one-slot"], g),
             d.child_effect(CHILD["one-slot"], "fork").child_first.measured, "check_fork_child_hit")],
        "a7-3-brief-and-limits.ipynb": [
            (lambda g: a7_3.check_capped_requests(LIMITS, g),
             d.totals(d.requests(LIMITS, "capped"), roles=("child",))["requests"], "check_capped_requests")],
    }


ANSWERS = _answers()


@pytest.mark.parametrize("page", list(ANSWERS))
def test_checkers_accept_the_answer_and_hint_without_it(page):
    for check, answer, _ in ANSWERS[page]:
        assert check(None) == ASK
        assert check(answer).startswith("对")
        wrong = check(answer + 17)
        assert wrong.startswith("不对") and f"{answer:,}" not in wrong


@pytest.mark.parametrize("page", list(ANSWERS))
def test_no_output_before_an_exercise_prints_its_answer(page):
    for _, answer, marker in ANSWERS[page]:
        shown = outputs_before(page, marker)
        if answer >= 100:  # small numbers occur everywhere (rounds, counts)
            assert f"{answer:,}" not in shown and f"\"{answer}\"" not in shown and f">{answer}<" not in shown, (
                page, answer)


def test_a_cap_stops_the_runaway_child_and_a_clear_brief_costs_least():
    child = {v: d.totals(d.requests(LIMITS, v), roles=("child",)) for v in ("runaway", "capped", "clear")}
    assert child["capped"]["requests"] == LIMITS.session_info("capped")["child_max_rounds"]
    assert child["clear"]["prompt"] < child["capped"]["prompt"] < child["runaway"]["prompt"]


def test_the_parent_back_checker():
    fresh = [e for e in EFFECTS if e.mode == "fresh"]
    right = [d.SETUP_LABELS[e.setup] for e in fresh if a7_2.fully_back(e)]
    assert a7_2.check_parent_back(EFFECTS, None) == ASK
    assert a7_2.check_parent_back(EFFECTS, right).startswith("对")
    assert a7_2.check_parent_back(EFFECTS, "一个槽位").startswith("答案是一个列表")
    assert a7_2.check_parent_back(EFFECTS, ["三个槽位"]).startswith("没有叫")
    wrong = [label for label in d.SETUP_LABELS.values() if label not in right][:1] + right
    assert a7_2.check_parent_back(EFFECTS, wrong).startswith("不对")


HANZI = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("lesson", sorted(BOOK.glob("a7-*.ipynb")), ids=lambda p: p.stem)
def test_lesson_reads_in_forty_minutes(lesson):
    """At 300 汉字 a minute (as A6's test counts), the whole markdown of a lesson reads in 40 minutes."""
    cells = nbformat.read(lesson, as_version=4).cells
    assert sum(len(HANZI.findall(c.source)) for c in cells if c.cell_type == "markdown") / 300 <= 40
