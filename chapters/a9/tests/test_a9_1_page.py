"""Lesson A9·1's page and helpers: every exercise checker accepts the right answer and hints without it
otherwise; no output of the page prints an answer; the oracle passes every task in the shipped results."""
import json
from pathlib import Path

import nbformat

from chapters.a9.exercises import a9_1
from chapters.a9.figures import task_set
from prefixlab.presenting.answers import ASK

PAGE = Path(__file__).resolve().parents[3] / "book" / "a9" / "a9-1-task-set.ipynb"


def test_the_checkers_accept_the_answer_and_hint_without_it():
    answer = a9_1.failing_tests()
    task = next(t for t in task_set.tasks() if t.id == a9_1.EXERCISE_TASK)
    assert answer == set(task.fail_to_pass)
    assert a9_1.check_failing_tests(None) == ASK
    assert a9_1.check_failing_tests(answer).startswith("对")
    wrong = a9_1.check_failing_tests(set(task.pass_to_pass))
    assert wrong.startswith("不对") and not any(name in wrong for name in answer)
    assert a9_1.check_damaged_why(None) == ASK
    assert a9_1.check_damaged_why("workspace damaged").startswith("对")
    assert not any(w in a9_1.check_damaged_why("check failed") for w in ("damaged", "deleted"))
    passes = a9_1.passes()
    assert a9_1.check_passes(passes).startswith("对")
    assert a9_1.check_passes(None) == ASK and str(passes + 1) not in a9_1.check_passes(passes + 1)


def test_the_shipped_results_have_the_oracle_at_every_task():
    rows = task_set.rows()
    assert task_set.passed(rows, "oracle") == (len(task_set.tasks()),) * 2
    assert {"text", "constrained"} <= set(task_set.designs(rows))


def test_no_output_of_the_page_prints_an_answer():
    nb = nbformat.read(PAGE, as_version=4)
    text = json.dumps([o for c in nb.cells if c.cell_type == "code" for o in c.outputs], ensure_ascii=False)
    assert "对:" not in text
    assert ASK in text  # the exercises ask, unanswered
