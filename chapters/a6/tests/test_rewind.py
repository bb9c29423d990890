"""Lesson A6·4's naive design, measured on T13's recorded day 1: going back n rounds by cutting a
linear list loses every entry after the cut; the session tree, with the fork really made, loses none."""
import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.figures.rewind import rewind
from prefixlab.recording.format import load

FORKS = RECORDINGS / "t13-forks-smollm2-llamacpp"


@pytest.fixture(scope="module")
def rec():
    return load(FORKS)


@pytest.mark.parametrize("back", range(1, 10))
def test_the_list_loses_what_follows_the_cut_and_the_tree_loses_nothing(rec, back):
    x = rewind(rec, "day1", back)
    path = rec.session_path("day1")
    calls = [e for e in path if e["type"] == "model_call"]
    assert x.kept_rounds == len(calls) - back
    # the cut is exactly where the fork going back that far branched off
    assert x.cut_after == rec.session_info(f"fork-r{x.kept_rounds}")["forked_from"]["entry"]
    assert x.lost == tuple(path[[e["id"] for e in path].index(x.cut_after) + 1:])
    assert x.lost_requests == back  # one recorded request and its measured answer per round
    assert x.lost_entries == x.lost_messages + x.lost_requests
    assert x.lost_entries_tree == 0  # every one of them is still in day1.jsonl, next to the fork


def test_three_rounds_back_loses_the_last_three_rounds_of_day1(rec):
    x = rewind(rec, "day1", 3)
    rounds = {e["round"] for e in x.lost if e["type"] == "model_call"}
    assert rounds == {8, 9, 10} and x.lost[-1]["message"]["content"].startswith("STATUS: done")
    # the assistant turn of each lost round, and the tool result of each one that called a tool
    assert x.lost_messages == 3 + 2


def test_going_back_too_far_is_a_clear_error(rec):
    with pytest.raises(ValueError, match="day1 has 10 rounds; can go back 1 to 9, not 10"):
        rewind(rec, "day1", 10)
