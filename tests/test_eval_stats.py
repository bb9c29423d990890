"""prefixlab.eval.stats and prefixlab.eval.rows: known values, and bad input as clear errors."""
from __future__ import annotations

import json
import math

import pytest

from prefixlab.eval import rows, stats


def run(task="t1", design="text", seed=0, passed=True, **over) -> dict:
    row = {"task": task, "design": design, "seed": seed, "passed": passed,
           "why": "pass" if passed else "check failed: test_x", "prompt_tokens": 100, "cached_tokens": 40,
           "completion_tokens": 10, "requests": 2, "seconds": 1.5, "stop_reason": "answer",
           "session": f"sessions/{task}-{design}-{seed}.jsonl"}
    return row | over


def runs(spec: dict[str, list[bool]], design="text") -> list[rows.Run]:
    return [rows.check(run(t, design, s, p)) for t, outcomes in spec.items() for s, p in enumerate(outcomes)]


# -- Wilson -----------------------------------------------------------------------------------------

def test_wilson_known_values():
    i = stats.wilson(7, 10)
    assert (round(i.low, 4), round(i.high, 4)) == (0.3968, 0.8922)
    # 0 of n: [0, z²/(n+z²)] exactly; n of n: the mirror image
    z2 = stats.Z95 ** 2
    assert stats.wilson(0, 10) == stats.Interval(0.0, pytest.approx(z2 / (10 + z2)))
    assert round(stats.wilson(0, 10).high, 4) == 0.2775
    assert stats.wilson(10, 10).high == 1.0 and stats.wilson(10, 10).low == pytest.approx(1 - z2 / (10 + z2))
    # symmetric around one half, and narrower with more runs
    assert stats.wilson(5, 10).low == pytest.approx(1 - stats.wilson(5, 10).high)
    assert stats.wilson(50, 100).high - stats.wilson(50, 100).low < stats.wilson(5, 10).high - stats.wilson(5, 10).low


def test_wilson_differs_from_the_normal_approximation_near_the_ends():
    p, n = 1 / 20, 20
    wald_low = p - stats.Z95 * math.sqrt(p * (1 - p) / n)
    assert wald_low < 0 < stats.wilson(1, 20).low


@pytest.mark.parametrize("passed,runs,message", [(1, 0, "no runs"), (3, 2, "cannot be more"),
                                                 (-1, 3, "whole number"), (1.5, 3, "whole number")])
def test_wilson_bad_input(passed, runs, message):
    with pytest.raises(ValueError, match=message):
        stats.wilson(passed, runs)


# -- pass@k -----------------------------------------------------------------------------------------

def test_pass_at_k_known_values():
    assert stats.pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)   # C(7,5) / C(10,5)
    assert stats.pass_at_k(10, 3, 1) == pytest.approx(0.3)             # pass@1 = c / n
    assert stats.pass_at_k(10, 0, 5) == 0.0
    assert stats.pass_at_k(10, 6, 5) == 1.0                            # n - c < k: every draw holds a pass
    assert stats.pass_at_k(200, 13, 100) == pytest.approx(1 - math.comb(187, 100) / math.comb(200, 100))


def test_pass_at_k_matches_the_papers_numerically_stable_form():
    # Chen et al. 2021, figure 3: 1 - prod(1 - k / arange(n - c + 1, n + 1))
    n, c, k = 30, 4, 7
    product = math.prod(1 - k / i for i in range(n - c + 1, n + 1))
    assert stats.pass_at_k(n, c, k) == pytest.approx(1 - product)


@pytest.mark.parametrize("n,c,k,message", [(5, 6, 1, "cannot be more"), (5, 1, 6, "between 1 and n"),
                                           (5, 1, 0, "between 1 and n")])
def test_pass_at_k_bad_input(n, c, k, message):
    with pytest.raises(ValueError, match=message):
        stats.pass_at_k(n, c, k)


def test_mean_pass_at_k_over_tasks_and_too_few_runs():
    rs = runs({"a": [True, False, False, False], "b": [False] * 4})
    assert stats.mean_pass_at_k(rs, 1) == pytest.approx((0.25 + 0) / 2)
    assert stats.mean_pass_at_k(rs, 2) == pytest.approx((1 - math.comb(3, 2) / math.comb(4, 2)) / 2)
    with pytest.raises(ValueError, match="at least 5 runs"):
        stats.mean_pass_at_k(rs, 5)


# -- spread, comparison -----------------------------------------------------------------------------

def test_by_task_and_by_seed():
    rs = runs({"a": [True, True, False], "b": [False, True, False]})
    assert {t: (s.passed, s.runs) for t, s in stats.by_task(rs).items()} == {"a": (2, 3), "b": (1, 3)}
    assert {s: (v.passed, v.runs) for s, v in stats.by_seed(rs).items()} == {0: (1, 2), 1: (2, 2), 2: (0, 2)}


def test_fisher_exact_known_value():
    # Fisher's tea-tasting table [[3, 1], [1, 3]]: two-sided p = 34/70
    assert stats.fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70)
    assert stats.fisher_exact(5, 10, 5, 10) == pytest.approx(1.0)
    assert stats.fisher_exact(10, 10, 0, 10) == pytest.approx(2 / math.comb(20, 10))


def test_compare_says_no_evidence_when_intervals_overlap():
    few = stats.compare(runs({"a": [True, False, True]}), runs({"a": [False, False, True]}, "constrained"))
    assert few.overlap and few.verdict == stats.NO_EVIDENCE and few.p_value > 0.05
    many = stats.compare(runs({"a": [True] * 30}), runs({"a": [False] * 30}, "constrained"))
    assert not many.overlap and many.verdict == stats.DIFFERENCE and many.p_value < 1e-6


def test_an_empty_selection_is_a_clear_error():
    with pytest.raises(ValueError, match="no runs selected"):
        stats.summary([])


# -- the results file -------------------------------------------------------------------------------

def write(path, items):
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def test_load_reads_a_results_file_or_its_folder(tmp_path):
    write(tmp_path / "results.jsonl", [run(seed=0), run(seed=1, passed=False)])
    loaded = rows.load(tmp_path)
    assert [r.passed for r in loaded] == [True, False] and loaded[1].failure == "check failed"
    assert rows.select(loaded, seeds={1}) == loaded[1:]


@pytest.mark.parametrize("bad,message", [
    ({"passed": "yes"}, "passed should be true or false"),
    ({"seed": 1.0}, "seed should be a whole number"),
    ({"prompt_tokens": -1}, "prompt_tokens should be a whole number >= 0"),
    ({"cached_tokens": 101}, "more than prompt_tokens"),
    ({"why": "check failed: x"}, "passed is True but why"),
    ({"why": "exploded", "passed": False}, "starts with none of"),
    ({"extra": 1}, "unknown key 'extra'"),
    ({"seconds": "1"}, "seconds should be a number"),
])
def test_a_bad_row_names_the_line_and_the_key(tmp_path, bad, message):
    write(tmp_path / "results.jsonl", [run(), run(seed=1) | bad])
    with pytest.raises(rows.ResultsError, match=message) as err:
        rows.load(tmp_path)
    assert "results.jsonl:2" in str(err.value)


def test_missing_key_duplicate_run_bad_json_and_no_file(tmp_path):
    r = run()
    del r["session"]
    write(tmp_path / "results.jsonl", [r])
    with pytest.raises(rows.ResultsError, match="key 'session' is missing"):
        rows.load(tmp_path)
    write(tmp_path / "results.jsonl", [run(), run()])
    with pytest.raises(rows.ResultsError, match="already on line 1"):
        rows.load(tmp_path)
    (tmp_path / "results.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(rows.ResultsError, match="not JSON"):
        rows.load(tmp_path)
    with pytest.raises(rows.ResultsError, match="no results file"):
        rows.load(tmp_path / "nowhere")
