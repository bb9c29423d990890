"""Chapter A2's pages: every exercise checker accepts the right answer and hints without it; nothing a
reader sees before an exercise prints its answer."""
import json
import sys
from pathlib import Path

import pytest

from chapters.a2.exercises import a2_1, a2_2, a2_3, a2_5
from chapters.a2.figures import shapes
from chapters.a2.figures.tool_sets import projection
from miniagent.paging import PAGE_CHARS, PAGE_LINES
from miniagent.tools import Toolbox, Workspace
from prefixlab.cache.tokenizer import load_template, load_tokenizer, prompt_token_ids
from prefixlab.paths import TOY_REPO
from prefixlab.presenting.answers import ASK

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from chapter_pages import text_before  # noqa: E402

BOOK = Path(__file__).resolve().parents[3] / "book" / "a2"

REC = shapes.retry_recording()
FIFTEEN = projection()["sets"]["fifteen"]
RETRY_DIR = Path(__file__).resolve().parents[3] / "data" / "recordings" / "a2-1-retry-smollm2-llamacpp"


def _text_retry_entries() -> list[dict]:
    """The text-retry session's requests in the recorded order, read from the files (not the checker)."""
    manifest = json.loads((RETRY_DIR / "manifest.json").read_text(encoding="utf-8"))
    entries = {e["id"]: e for e in map(json.loads, (RETRY_DIR / "text-retry.jsonl").read_text(encoding="utf-8").splitlines())}
    return [entries[o["call"]] for o in manifest["order"] if o["session"] == "text-retry"]


def retry_cached_from_data() -> int:
    """Exercise 2's answer: what the server reported as cached for the second (retry) request."""
    return _text_retry_entries()[1]["response"]["usage"]["prompt_tokens_details"]["cached_tokens"]


def fifth_tool_from_data() -> int:
    """Exercise 1's answer: the first recorded request with miniagent's write_file added, re-tokenized, minus
    the server's own prompt_tokens for that request as it was sent (the four tools)."""
    first = _text_retry_entries()[0]
    write_file = Toolbox(Workspace(TOY_REPO), memory=None).handlers["write_file"].definition
    five = prompt_token_ids(load_template(), load_tokenizer(), first["request"]["messages"],
                            first["request"]["tools"] + [write_file])
    return len(five) - first["response"]["usage"]["prompt_tokens"]


def pages_to_needle_from_data() -> int:
    """A2·3 exercise 1: read_file pages of PAGE_LINES lines from line 1 until the one holding the ERR line.
    Every line of the file is short enough that PAGE_LINES of them fit in PAGE_CHARS, so pages are whole."""
    lines = (RETRY_DIR.parents[2] / "data" / "a2" / "big" / "station-log.csv").read_text(encoding="utf-8").splitlines(True)
    assert max(len(line) for line in lines) * PAGE_LINES <= PAGE_CHARS
    (err_line,) = [i for i, line in enumerate(lines, 1) if "ERR" in line]
    return (err_line - 1) // PAGE_LINES + 1


def test_the_independent_answers_are_what_the_checkers_accept():
    assert a2_3.check_pages_to_line(pages_to_needle_from_data()).startswith("对")
    assert a2_1.check_retry_cached(REC, retry_cached_from_data()).startswith("对")
    assert a2_1.check_fifth_tool(fifth_tool_from_data()).startswith("对")

ANSWERS = {
    "a2-1-call-shapes.ipynb": [
        ("check_retry_cached", lambda g: a2_1.check_retry_cached(REC, g), retry_cached_from_data(), 0),
        ("check_fifth_tool", a2_1.check_fifth_tool, fifth_tool_from_data(), 0)],
    "a2-2-how-many-tools.ipynb": [
        ("check_twenty_round_share", a2_2.check_twenty_round_share, FIFTEEN["share_percent"], 3),
        ("check_cached_block_cost", a2_2.check_cached_block_cost, FIFTEEN["cost"]["cached"], 0.1)],
    "a2-3-big-outputs-and-edits.ipynb": [
        ("check_pages_to_line", a2_3.check_pages_to_line, pages_to_needle_from_data(), 0),
        ("check_pages_tokens", a2_3.check_pages_tokens, a2_3.pages_tokens(), 0.1)],
    "a2-5-constrained-calls.ipynb": [
        ("check_second_read", a2_5.check_second_read, a2_5.second_read()[0], 0)],
}


@pytest.mark.parametrize("page", list(ANSWERS))
def test_checkers_accept_the_answer_and_hint_without_it(page):
    for _, check, answer, tolerance in ANSWERS[page]:
        assert check(None) == ASK
        assert check(answer).startswith("对")
        if tolerance == 0:  # an exact answer: one off either way is wrong
            assert check(answer + 1).startswith("不对") and check(answer - 1).startswith("不对")
        wrong = check(answer * 2 + 7)
        assert wrong.startswith("不对") and f"{answer:,}" not in wrong and str(answer) not in wrong
        assert check(True).startswith("答案要写成")  # a bool is not a number: told so, not "answer first"


@pytest.mark.parametrize("page", list(ANSWERS))
def test_nothing_before_an_exercise_prints_its_answer(page):
    for name, _, answer, _ in ANSWERS[page]:
        seen = text_before(BOOK / page, name)
        if isinstance(answer, float):
            assert f"{answer:.4f}" not in seen, (page, name)
        elif answer >= 100:
            assert f"{answer:,}" not in seen and str(answer) not in seen, (page, name)


@pytest.mark.parametrize("check, right, wrong", [
    (a2_5.check_required_prose, "c", ("a", "b")),
    (a2_5.check_final_answer, "keeps_calling", ("answers",)),
])
def test_a2_5_choice_checkers(check, right, wrong):
    assert check(right).startswith("对")
    for answer in wrong:
        assert check(answer).startswith("不对")
    assert "再运行" in check(None) and "再运行" in check(True)


def test_a2_5_second_read_is_predicted():
    measured, predicted = a2_5.second_read()
    assert measured == predicted > 0
