import pytest

from prefixlab.presenting.swimlane import lanes, memory_in_prompt
from prefixlab.recording.format import find_recordings, load

RECORDING = find_recordings()[0]


@pytest.fixture(scope="module")
def rec():
    return load(RECORDING)


def test_refresh_shows_the_note_in_the_very_next_request(rec):
    refresh = lanes(rec, "refresh")
    write_round = next(l.round for l in refresh if l.on_disk)
    assert all(not l.lagging for l in refresh)  # disk and prompt move together
    assert [l.refreshed for l in refresh].count(True) == 1
    assert next(l for l in refresh if l.refreshed).round == write_round


def test_frozen_lags_until_day_two(rec):
    frozen = lanes(rec, "frozen")
    day1 = [l for l in frozen if l.day == 1]
    assert any(l.lagging for l in day1) and not any(l.refreshed for l in frozen)
    assert all(l.in_context == () for l in day1)
    assert all(not l.lagging and l.in_context for l in frozen if l.day == 2)


def test_memory_in_prompt_refuses_other_prompts():
    with pytest.raises(ValueError, match="no memory header"):
        memory_in_prompt("You are a helpful assistant.")


def test_each_lane_knows_the_tool_its_reply_called(rec):
    day1 = [l for l in lanes(rec, "refresh") if l.day == 1]
    write = next(l for l in day1 if l.tool == "remember")
    assert day1[write.round].on_disk and not write.on_disk  # on disk from the next request on
    assert day1[-1].tool is None  # the last reply is the final answer
