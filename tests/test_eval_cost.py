"""prefixlab.presenting.cost: the price of one solved task, under every provider rule; never a division by zero."""
from __future__ import annotations

import json
import math
import shutil

import pytest

from prefixlab.cache import pricing
from prefixlab.eval import rows, stats
from prefixlab.presenting import cost
from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill

LOOP = RECORDINGS / "a1-loop-smollm2-llamacpp"   # a shipped recording stands in for an evaluation's sessions


def run(session, design="text", seed=0, passed=True, folder=LOOP, task="t1") -> rows.Run:
    """A result row for one session of the shipped recording, its tokens taken from the session's bill."""
    t = bill.bill_session(folder / session).total
    return rows.check({"task": task, "design": design, "seed": seed, "passed": passed,
                       "why": "pass" if passed else "check failed: test_add", "prompt_tokens": t.prompt,
                       "cached_tokens": t.cache_read, "completion_tokens": t.output, "requests": t.calls,
                       "seconds": 2.0, "stop_reason": "answer", "session": session})


def test_measured_tokens_per_solved_task_are_the_rows_divided_by_the_passes():
    runs = [run("naive.jsonl", seed=0), run("loop.jsonl", seed=1, passed=False), run("long.jsonl", seed=2)]
    got = cost.price_design(runs, LOOP, cost.PROVIDERS[0])
    assert got.basis == cost.MEASURED and got.usd is None and got.per_solved_usd is None
    assert (got.runs, got.solved) == (3, 2)
    assert got.per_solved_tokens == sum(r.prompt_tokens for r in runs) / 2
    assert got.per_solved_read == sum(r.cached_tokens for r in runs) / 2
    assert got.per_solved_seconds == 3.0


@pytest.mark.parametrize("p", cost.PROVIDERS[1:], ids=lambda p: p.rule)
def test_every_cloud_rule_replays_the_runs_sessions_and_divides_by_the_passes(p):
    runs = [run("naive.jsonl", seed=0), run("loop.jsonl", seed=1, passed=False)]
    got = cost.price_design(runs, LOOP, p)
    assert got.basis == cost.REPLAYED
    # the same as the bill of the two sessions under that rule, priced at the model's table
    b = bill.bill(LOOP)
    expected = sum(bill.price(b, p.model, sessions=[s]).total for s in ("naive", "loop"))
    assert got.usd == pytest.approx(expected)
    assert got.per_solved_usd == pytest.approx(expected / 1)
    assert got.per_run_usd == pytest.approx(expected / 2)
    low, high = got.per_solved_usd_interval()
    ci = stats.wilson(1, 2)
    assert (low, high) == (pytest.approx(expected / 2 / ci.high), pytest.approx(expected / 2 / ci.low))


def test_nothing_solved_is_undefined_never_a_division_by_zero():
    runs = [run("naive.jsonl", passed=False), run("loop.jsonl", seed=1, passed=False)]
    for p in cost.PROVIDERS:
        got = cost.price_design(runs, LOOP, p)
        assert got.solved == 0 and got.per_solved_usd is None and got.per_solved_tokens is None
        assert "undefined" in got.why_undefined
        if p.model:
            assert got.usd > 0 and got.per_solved_usd_interval()[1] == math.inf
    assert cost.price_design(runs[:1] + [run("long.jsonl", seed=2)], LOOP, cost.PROVIDERS[0]).why_undefined is None


def test_a_cheaper_design_that_fails_more_can_cost_more_per_success():
    cheap = [run("naive.jsonl", "cheap", s, passed=(s == 0)) for s in range(12)]     # 1 of 12
    dear = [run("loop.jsonl", "dear", s, passed=True) for s in range(4)]             # 4 of 4
    p = cost.PROVIDERS[1]
    c, d = cost.price_design(cheap, LOOP, p), cost.price_design(dear, LOOP, p)
    assert c.per_run_usd < d.per_run_usd and c.per_solved_usd > d.per_solved_usd


def test_per_solved_covers_every_design_and_provider():
    runs = [run("naive.jsonl", "text"), run("loop.jsonl", "oracle")]
    got = cost.per_solved(runs, LOOP)
    assert set(got) == {(d, p.rule) for d in ("oracle", "text") for p in cost.PROVIDERS}


def test_a_session_file_outside_a_recording_is_converted_at_the_table(tmp_path):
    shutil.copy(LOOP / "naive.jsonl", tmp_path / "naive.jsonl")
    r = run("naive.jsonl", folder=tmp_path)
    p = cost.PROVIDERS[2]
    got = cost.price_design([r], tmp_path, p)
    listed = pricing.model_price(p.model)
    expected = ((r.prompt_tokens - r.cached_tokens) * listed.base_input + r.cached_tokens * listed.price("read")
                + r.completion_tokens * listed.output) / 1e6
    assert got.basis == cost.CONVERTED and got.usd == pytest.approx(expected) and got.read_tokens == r.cached_tokens


def test_bad_input_is_a_clear_error(tmp_path):
    with pytest.raises(cost.CostError, match="does not exist"):
        cost.price_design([run("naive.jsonl")], tmp_path, cost.PROVIDERS[1])
    with pytest.raises(cost.CostError, match="one design at a time"):
        cost.price_design([run("naive.jsonl"), run("loop.jsonl", "oracle")], LOOP, cost.PROVIDERS[1])
    with pytest.raises(cost.CostError, match="no runs"):
        cost.price_design([], LOOP, cost.PROVIDERS[1])
    (tmp_path / "rec").mkdir()
    shutil.copy(LOOP / "naive.jsonl", tmp_path / "rec" / "other.jsonl")
    (tmp_path / "rec" / "manifest.json").write_text(json.dumps({"sessions": [{"id": "x", "file": "x.jsonl"}]}))
    bad = rows.check(json.loads(json.dumps(run("naive.jsonl").__dict__)) | {"session": "rec/other.jsonl"})
    with pytest.raises(cost.CostError, match="no session in the manifest uses the file 'other.jsonl'"):
        cost.locate(bad, tmp_path)


def test_assumptions_name_the_lifetime_the_table_date_and_url():
    for p in cost.PROVIDERS:
        a = cost.assumptions(p)
        assert a.lifetime
        if p.model:
            assert a.table_url.startswith("https://") and a.table_date[:4] == "2026"
    g = cost.gaps(LOOP)
    assert g["epochs"] >= 1 and g["longest_gap_seconds"] >= 0
    assert cost.gaps(LOOP.parent) == {}


def test_a_run_that_sent_no_request_costs_nothing(tmp_path):
    (tmp_path / "oracle").mkdir()
    (tmp_path / "oracle" / "t1-0.jsonl").write_text("", encoding="utf-8")
    r = rows.check({"task": "t1", "design": "oracle", "seed": 0, "passed": True, "why": "pass", "prompt_tokens": 0,
                    "cached_tokens": 0, "completion_tokens": 0, "requests": 0, "seconds": 0.1,
                    "stop_reason": "answer", "session": "oracle/t1-0.jsonl"})
    got = cost.price_design([r], tmp_path, cost.PROVIDERS[1])
    assert got.usd == 0 and got.per_solved_usd == 0 and got.basis == cost.REPLAYED
