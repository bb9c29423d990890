"""A7·4's parallel half, offline: the numbers the page glues come from the recordings, the figure
builds without a kernel, the checkers accept the answer and refuse others without printing it."""
import plotly.graph_objects as go
import pytest

from chapters.a7.exercises.a7_4_parallel import check_second_child_first, check_slot_share, slot_share
from chapters.a7.figures.parallel import (load_parallel, numbers, parallel_effect, slot_context,
                                          timeline_figure)
from prefixlab.presenting.answers import ASK


@pytest.fixture(scope="module")
def recordings():
    return load_parallel()


def test_each_slot_gets_its_share_of_the_context(recordings):
    two, one = recordings
    assert slot_context(two)["n_ctx_slot"] * slot_context(two)["slots"] == slot_context(two)["c"]
    assert slot_context(one)["n_ctx_slot"] == slot_context(one)["c"]


def test_numbers_are_measured_and_every_request_is_predicted(recordings):
    n = numbers(*recordings)
    assert n["a74p_exact"] == n["a74p_requests"]
    assert n["a74p_long_refused_tokens"] >= n["a74p_long_refused_ctx"] > n["a74p_long_last_ok"]
    assert n["a74p_long_longest_one"] > n["a74p_slot_ctx"]
    assert all(isinstance(v, (int, float)) for v in n.values())
    answer = parallel_effect(recordings[0], "parallel-replies").child_first["child2"][1]
    assert not any("child2_first_cached" in k and v == answer for k, v in n.items() if "parr" in k)


def test_the_parent_comes_back_to_a_slot_the_children_used(recordings):
    effect = parallel_effect(recordings[0], "parallel")
    assert effect.parent_back.slot in effect.child_slots["child1"] + effect.child_slots["child2"]
    assert effect.parent_back.measured < effect.parent_before.prompt_tokens


def test_timeline_figure_is_static(recordings):
    fig = timeline_figure(recordings[0])
    assert isinstance(fig, go.Figure) and fig.to_json()
    assert any("来源" in a.text for a in fig.layout.annotations)


def test_checkers(recordings):
    assert check_slot_share(None) == ASK and "写成整数" in check_slot_share("x")  # answered, not a number: told so
    assert check_slot_share(slot_share()).startswith("对")
    assert not check_slot_share(slot_share() + 256).startswith("对")
    two = recordings[0]
    answer = parallel_effect(two, "parallel-replies").child_first["child2"][1]
    assert check_second_child_first(two, answer).startswith("对")
    wrong = check_second_child_first(two, answer + 100)
    assert wrong.startswith("不对") and f"{answer:,}" not in wrong


def test_with_longer_replies_the_children_overlap_on_two_slots_and_need_the_servers_times(recordings):
    from chapters.a7.figures.parallel import without_times_wrong

    effect = parallel_effect(recordings[0], "parallel-replies")
    assert effect.overlap > 0 and effect.child_slots["child1"] != effect.child_slots["child2"]
    assert without_times_wrong(recordings[0]) > 0   # the rule needs launched/done to get them right


# -- the recorder's reading of the server log, and bad times in a manifest --------------------------

LOG = """0.00.100.000 I slot launch_slot_: id  1 | task 1 | processing task, is_child = 0
0.00.100.010 I slot   operator(): id  1 | task 1 | new prompt, n_ctx_slot = 2048, n_keep = 0, task.n_tokens = 100
0.00.500.000 I slot launch_slot_: id  0 | task 3 | processing task, is_child = 0
0.00.500.010 I slot   operator(): id  0 | task 3 | new prompt, n_ctx_slot = 2048, n_keep = 0, task.n_tokens = 120
0.01.000.000 I slot      release: id  1 | task 1 | stop processing: n_tokens = 100, truncated = 0
1.02.000.000 I slot      release: id  0 | task 3 | stop processing: n_tokens = 120, truncated = 0
"""


def test_server_times_come_from_the_log():
    from chapters.a7.experiments.parallel import server_events, server_times

    items = [{"session": "a", "t": 0.0}, {"session": "b", "t": 0.1}]
    assert server_times(items, [100, 120], server_events(LOG)) == [(1, 0.1, 1.0), (0, 0.5, 62.0)]
    with pytest.raises(RuntimeError, match="arrival order differs"):
        server_times(items, [120, 100], server_events(LOG))
    with pytest.raises(RuntimeError, match="no release of task 3"):
        server_times(items, [100, 120], server_events(LOG.rsplit("1.02", 1)[0]))
    with pytest.raises(RuntimeError, match="2 requests"):
        server_times(items, [100, 120], server_events(LOG.split("0.00.500.000")[0]))


def test_a_manifest_with_half_the_server_times_is_refused(tmp_path):
    import json
    import shutil

    from prefixlab.paths import RECORDINGS
    from prefixlab.recording.format import RecordingError, load

    copy = tmp_path / "rec"
    shutil.copytree(RECORDINGS / "a7-4-parallel-one-slot", copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    del manifest["order"][3]["done"]
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(RecordingError, match=r"order\[3\].*launched and done go together"):
        load(copy)
    manifest["order"][3]["done"] = manifest["order"][3]["launched"] - 1
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(RecordingError, match="before the request was launched"):
        load(copy)


def test_on_one_slot_the_later_child_waits_for_the_slot(recordings):
    """-np 1: the second child's first request was sent while the first child's ran (client clock), yet
    the server launched it only after that slot was released (server clock): deferred, predicted exactly."""
    one = recordings[1]
    rows = parallel_effect(one, "parallel-replies").rows
    first1, first2 = (next(r for r in rows if r.role == role) for role in ("child1", "child2"))
    child1_second = [c for c in one.calls if c.session == "parallel-replies-child1"][1]
    child2_first = [c for c in one.calls if c.session == "parallel-replies-child2"][0]
    assert child2_first.t < child1_second.t                  # both children were waiting on the server at once
    assert first2.launched >= first1.done                    # but the slot ran them one after the other
    assert {r.slot for r in rows} == {0} and all(r.ok for r in rows)
