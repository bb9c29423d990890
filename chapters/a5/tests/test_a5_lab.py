"""The A5 lab: the offline replay of A5·1's task counts every request as the server did, and bad
settings get a Chinese message instead of a crash."""
import pytest

from chapters.a5.figures.triggers import requests
from chapters.a5.lab.compaction import TriggerApp, TriggerLab
from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import load


@pytest.fixture(scope="module")
def lab():
    return TriggerLab()


def test_without_compaction_every_request_has_the_recorded_size(lab):
    recorded = [r.prompt_tokens for r in requests(load(RECORDINGS / "a5-1-triggers-smollm2-llamacpp"), "never")]
    steps = lab.simulate("never")
    assert [s.tokens for s in steps] == recorded and steps[-1].kind == "over"


def test_the_reserve_keeps_every_agent_request_under_the_window_and_counting_messages_compacts_more(lab):
    reserve, every = lab.simulate("reserve"), lab.simulate("every-n")
    assert all(s.tokens < 4096 for s in reserve if s.kind != "summary") and reserve[-1].kind == "agent"
    assert sum(s.kind == "summary" for s in every) > sum(s.kind == "summary" for s in reserve) > 0


@pytest.mark.parametrize("settings, message", [
    ({"trigger": "sometimes"}, "触发方式"), ({"reserve": 5000}, "预留"), ({"keep_rounds": -1}, "保留轮数"),
])
def test_bad_settings_are_refused_in_chinese(lab, settings, message):
    trigger = settings.pop("trigger", "reserve")
    with pytest.raises(ValueError, match=message):
        lab.simulate(trigger, **settings)


def test_the_app_shows_an_error_instead_of_crashing(lab):
    app = TriggerApp(lab)
    app.window.value, app.reserve.value = 2048, 512  # a reserve that leaves room: fine
    assert "lab-error" not in app.panel.value
    app.reserve.value = 2048  # reserve == window: refused with a message
    assert "lab-error" in app.panel.value and "预留" in app.panel.value
