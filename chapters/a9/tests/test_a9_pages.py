"""Chapter A9's pages on the shipped evaluation: every checker accepts its answer and hints without it; no
text a page (or a page before it) prints gives an answer away; the oracle passes every task; every result
row's tokens are its session file's bill; the price per solved task is undefined exactly when nothing passed."""
import re
from pathlib import Path

import nbformat
import pytest

from prefixlab.eval import stats
from prefixlab.presenting import cost
from prefixlab.presenting.answers import ASK

from chapters.a9.exercises import a9_2, a9_3
from chapters.a9.figures import passrate, price

ROOT = Path(__file__).resolve().parents[3]
BOOK = ROOT / "book" / "a9"
ORDER = ["index.ipynb", "a9-1-task-set.ipynb", "a9-2-how-many-runs.ipynb", "a9-3-price-per-solved-task.ipynb"]


def answers():
    out = {"a9-2-how-many-runs.ipynb": [(a9_2.check_runs_for_rare, a9_2.runs_for_rare()),
                                          (a9_2.check_sweep_range, a9_2.sweep_range())],
           "a9-3-price-per-solved-task.ipynb": [(a9_3.check_tokens_at_best, a9_3.tokens_at_best()),
                                                 (a9_3.check_reads_per_run, a9_3.reads_per_run())]}
    return out


ANSWERS = answers()


def shown_text(path: Path) -> str:
    """What a page prints as text (streams, text/plain, HTML tables), figures' JSON aside."""
    if not path.exists():
        return ""
    nb = nbformat.read(path, as_version=4)
    parts = []
    for c in nb.cells:
        for o in c.get("outputs", []) if c.cell_type == "code" else []:
            parts.append(o.get("text", ""))
            data = o.get("data", {})
            if "application/vnd.plotly.v1+json" not in data:
                parts += [data.get("text/plain", ""), data.get("text/html", "")]
    return "\n".join(parts)


@pytest.mark.parametrize("page", list(ANSWERS))
def test_checkers_accept_the_answer_and_hint_without_it(page):
    for check, answer in ANSWERS[page]:
        assert check(None) == ASK
        assert check(answer).startswith("对")
        wrong = check(answer + 7 if answer > 0 else 7)
        assert wrong.startswith("不对") and f"{answer:,}" not in wrong and str(answer) not in wrong


@pytest.mark.parametrize("page", list(ANSWERS))
def test_no_text_of_the_page_or_the_pages_before_prints_an_answer(page):
    shown = "".join(shown_text(BOOK / p) for p in ORDER[:ORDER.index(page) + 1])
    for _, answer in ANSWERS[page]:
        if 0 <= answer < 10:  # a single digit is on every page (a count, a date); only larger answers can leak
            continue
        for form in {f"{answer:,}", str(answer)}:
            assert not re.search(rf"(?<![\w.,$/–-]){re.escape(form)}(?![\d,.%])", shown), (page, answer)


def test_the_oracle_passes_every_task_and_sends_nothing():
    oracle = passrate.of(passrate.ORACLE)
    assert {r.task for r in oracle} == set(passrate.tasks())
    assert all(r.passed and r.requests == 0 for r in oracle)


def test_there_are_two_live_designs_on_the_oracles_tasks():
    live = passrate.live_designs()
    assert len(live) >= 2
    for d in live:
        assert passrate.of(d) and {r.task for r in passrate.of(d)} <= {r.task for r in passrate.of(passrate.ORACLE)}


def test_every_rows_tokens_are_its_sessions_bill():
    for r in passrate.runs():
        if r.requests:
            assert passrate.billed_prompt_tokens(r) == r.prompt_tokens, (r.task, r.design, r.seed)


def test_price_per_solved_is_undefined_exactly_when_nothing_passed():
    for (design, rule), p in price.priced().items():
        assert (p.solved == 0) == (p.per_solved_tokens is None)
        if p.provider.model and p.solved:
            assert p.per_solved_usd == pytest.approx(p.usd / p.solved)
            assert p.basis == cost.REPLAYED


def test_the_comparison_agrees_with_the_intervals():
    a, b = passrate.live_designs()[:2]
    c = passrate.comparison(a, b)
    assert c.overlap == stats.wilson(c.a.passed, c.a.runs).overlaps(stats.wilson(c.b.passed, c.b.runs))
    sweeps = passrate.single_sweeps(a, b)
    assert sum(sweeps.values()) == len(passrate.sweep_seeds(a, b)) >= 1
