import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.figures.swimlane import groups, lanes, memory_in_prompt
from prefixlab.recording.format import load

RECORDING = RECORDINGS / "t10-smollm2-llamacpp"  # the book's recording (others may sort before it)


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


# -- three rows per request: system prompt, conversation, disk -- for every design ---------------

def test_the_four_designs_are_recorded_in_order(rec):
    assert groups(rec) == ["refresh", "frozen", "append", "after-tools"]


def _write_round(group_lanes):
    return next(l.round for l in group_lanes if l.day == 1 and l.tool == "remember")


@pytest.mark.parametrize("group", ["refresh", "frozen", "append", "after-tools"])
def test_the_note_is_on_disk_from_the_request_after_the_write_in_every_design(rec, group):
    group_lanes = lanes(rec, group)
    write = _write_round(group_lanes)
    assert [bool(l.on_disk) for l in group_lanes] == [l.day == 2 or l.round > write for l in group_lanes]
    # The model's own remember call is in the conversation from then on, whatever the design.
    day1 = [l for l in group_lanes if l.day == 1]
    assert [("tool_call" in l.places) for l in day1] == [l.round > write for l in day1]


def test_append_shows_the_note_in_an_update_message_and_leaves_the_system_prompt_alone(rec):
    append = lanes(rec, "append")
    write = _write_round(append)
    day1 = [l for l in append if l.day == 1]
    assert all(l.in_system == () and not l.refreshed and not l.rewritten for l in day1)
    assert [l.appended for l in day1] == [l.round == write + 1 for l in day1]
    assert [("update" in l.places) for l in day1] == [l.round > write for l in day1]
    assert all(l.unseen == () for l in append)  # on disk means in front of the model
    day2 = [l for l in append if l.day == 2]
    assert all(l.in_system == l.on_disk and l.in_messages == () for l in day2)  # the next snapshot has it


def test_after_tools_keeps_the_note_in_the_first_user_message_not_the_system_prompt(rec):
    after = lanes(rec, "after-tools")
    write = _write_round(after)
    assert all(l.in_system == () and not l.refreshed for l in after)
    day1 = [l for l in after if l.day == 1]
    assert [l.rewritten for l in day1] == [l.round == write + 1 for l in day1]
    assert [("first_user" in l.places) for l in after] == [l.day == 2 or l.round > write for l in after]
    assert all(l.unseen == () for l in after)


def test_frozen_shows_the_note_only_in_its_own_tool_call_until_day_two(rec):
    frozen = [l for l in lanes(rec, "frozen") if l.day == 1 and l.on_disk]
    assert frozen and all(l.places == ("tool_call",) and l.in_system == () for l in frozen)
