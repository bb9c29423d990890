"""Chapter A4's lab (labs/a4/prefix-cache.ipynb): one change to A4·1's prompt, read back under every rule."""
import pytest

from chapters.a4.lab.prefix_cache import PRESETS, ChangeError, PrefixApp, PrefixLab


@pytest.fixture(scope="module")
def lab():
    return PrefixLab()


def test_llamacpp_reads_exactly_up_to_the_first_different_token(lab):
    for _, part, old, new in PRESETS:
        o = lab.outcome(part, old, new)
        assert 0 < o.p < o.n_before and o.read["llamacpp"] == o.p
        assert all(0 <= o.read[rule] <= o.p for rule in ("anthropic", "openai"))
        assert o.read["openai"] == 0 or (o.read["openai"] - 1024) % 128 == 0


def test_the_change_is_made_on_a_copy(lab):
    before = lab.text("system")
    lab.changed("system", "You are", "Yuu are")
    assert lab.text("system") == before


@pytest.mark.parametrize("part, old, new, message", [
    ("system", "no such words", "x", "没有"),
    ("task", "README", "README", "一样"),      # an identical resend is A4·1's exercise 3
    ("task", "", "x", "原文"),
    ("tools", "read", "x", "只能改"),
])
def test_a_change_the_lab_cannot_make_says_why_in_chinese(lab, part, old, new, message):
    with pytest.raises(ChangeError, match=message):
        lab.describe(part, old, new)


def test_the_app_shows_a_preset_and_keeps_working_after_a_typo(lab):
    app = PrefixApp(lab)
    first = app.result.value
    assert "p = " in first
    app.preset.value = 1
    assert app.result.value != first and "Qonventions" in app.result.value
    app.old.value = "not in the prompt"
    app.run.click()
    assert "⚠" in app.result.value
    app.preset.value = 0
    assert "Yuu are" in app.result.value
