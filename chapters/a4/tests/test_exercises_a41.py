"""Lesson A4·1's exercise checkers: the right answer is accepted, a wrong or missing one gets a hint
without the number, and the page never prints an answer before its exercise."""
import json

import pytest

from prefixlab.cache import calculator
from prefixlab.paths import REPO_ROOT
from prefixlab.presenting.answers import ASK
from prefixlab.recording.format import load
from chapters.a4.exercises import a4_1 as exercises
from chapters.a4.paths import A41_RECORDING

PAGE = REPO_ROOT / "book" / "a4" / "a4-1-prefix-cache.ipynb"


@pytest.fixture(scope="module")
def rec():
    return load(A41_RECORDING)


def answers(rec):
    ps = exercises.probe_positions(rec)
    restore = {r.session: r.measured for r in calculator.analyze(rec)}
    resend = calculator.analyze(rec, "anthropic", sessions="base-2", **exercises.RULE_SETTINGS["anthropic"])[0].read
    return {"late": (ps[-1], restore[f"restore-p{ps[-1]:04d}"]), "early": (ps[0], restore[f"restore-p{ps[0]:04d}"]),
            "resend": resend}


def test_the_early_restore_is_served_by_the_host_cache_and_the_late_one_by_the_slot(rec):
    a, n = answers(rec), rec.manifest["sweep"]["prompt_tokens"]
    assert a["late"][1] == a["late"][0]
    assert a["early"][1] == n - 1


def test_right_answers_are_accepted_and_wrong_ones_get_a_hint_without_the_number(rec):
    a = answers(rec)
    for p, value in (a["late"], a["early"]):
        assert exercises.check_restore(rec, p, None) == ASK
        assert exercises.check_restore(rec, p, value).startswith("对")
        wrong = exercises.check_restore(rec, p, value + 1)
        assert wrong.startswith("不对") and f"{value:,}" not in wrong and str(value) not in wrong
    assert exercises.check_resend(rec, "anthropic", a["resend"]).startswith("对")
    wrong = exercises.check_resend(rec, "anthropic", a["resend"] - 1)
    assert wrong.startswith("不对") and f"{a['resend']:,}" not in wrong
    assert "不是这次扫描" in exercises.check_restore(rec, -1, 0)
    assert "规则只能是" in exercises.check_resend(rec, "vllm", 0)


def outputs_before(cells, call: str) -> str:
    """Every output of the cells above the first cell that calls ``call``."""
    shown = []
    for cell in cells:
        if call in "".join(cell["source"]):
            return "\n".join(shown)
        shown += [json.dumps(out, ensure_ascii=False) for out in cell.get("outputs", [])]
    raise AssertionError(f"the page has no cell that calls {call}")


def test_the_page_prints_no_answer_before_its_exercise(rec):
    """No restore request is shown before exercises 1 and 2 (the early one reads n-1, a number the page
    does show for the resend: finding why is the exercise); exercise 3's number appears nowhere above it."""
    a = answers(rec)
    cells = json.loads(PAGE.read_text(encoding="utf-8"))["cells"]
    assert "restore-p" not in outputs_before(cells, "exercises.check_restore")
    above = outputs_before(cells, "exercises.check_resend")
    assert f"{a['resend']:,}" not in above and f"'{a['resend']}'" not in above
