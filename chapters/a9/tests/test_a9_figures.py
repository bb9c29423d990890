"""Chapter A9's figures, exercise checkers and lab, on a small fake evaluation built from a shipped recording
(the sessions are real live-model sessions of a2-ways; the result rows are made up here, for the tests only)."""
from __future__ import annotations

import json
import shutil

import pytest

from prefixlab.eval import stats
from prefixlab.paths import RECORDINGS
from prefixlab.presenting.answers import ASK
from prefixlab.presenting.bill import bill_session

from chapters.a9.exercises import a9_2
from chapters.a9.figures import passrate, price
from chapters.a9.lab.evaluate import EvaluateApp, Selection, report

SOURCE = RECORDINGS / "a2-ways-qwen2.5-coder-0.5b-llamacpp"


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    folder = tmp_path_factory.mktemp("a9") / "eval"
    shutil.copytree(SOURCE, folder)
    files = [s["file"] for s in json.loads((folder / "manifest.json").read_text())["sessions"]]
    out = []
    for d, passes in (("text", {(0, 1)}), ("constrained", {(0, 1), (0, 2), (1, 1)})):
        for t in range(2):
            for seed in (1, 2, 3):
                file = files[(t * 3 + seed) % len(files)]
                u = bill_session(folder / file).total
                ok = (t, seed) in passes
                out.append({"task": f"t{t}", "design": d, "seed": seed, "passed": ok,
                            "why": "pass" if ok else "check failed: test_x", "prompt_tokens": u.prompt,
                            "cached_tokens": u.cache_read, "completion_tokens": u.output, "requests": u.calls,
                            "seconds": 2.0, "stop_reason": "answered", "session": file})
    (folder / "oracle").mkdir()
    for t in range(2):
        (folder / "oracle" / f"o{t}.jsonl").write_text("", encoding="utf-8")
        out.append({"task": f"t{t}", "design": "oracle", "seed": 1, "passed": True, "why": "pass", "prompt_tokens": 0,
                    "cached_tokens": 0, "completion_tokens": 0, "requests": 0, "seconds": 0.1,
                    "stop_reason": "answered", "session": f"oracle/o{t}.jsonl"})
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    return folder


def test_pass_rates_spread_and_single_sweeps(fake):
    assert passrate.designs(fake) == ["text", "constrained", "oracle"]
    assert [r[3] for r in passrate.table_rows(fake)] == [1, 3, 2]
    assert passrate.table_rows(fake)[2][5] == stats.wilson(2, 2).pct()
    assert {t: s.passed for t, s in passrate.task_rates("constrained", fake).items()} == {"t0": 2, "t1": 1}
    assert {s: v.passed for s, v in passrate.seed_rates("constrained", fake).items()} == {1: 2, 2: 1, 3: 0}
    assert passrate.single_sweeps("constrained", "text", fake) == {"ahead": 2, "behind": 0, "level": 1}
    assert passrate.pass_at_k("text", fake)[1] == pytest.approx(1 / 6)
    assert passrate.failures("text", fake) == {"pass": 1, "check failed": 5}
    assert passrate.comparison("text", "constrained", fake).verdict == stats.NO_EVIDENCE
    for fig in (passrate.interval_figure(fake), passrate.task_figure(fake), passrate.pass_at_k_figure(fake)):
        assert fig.data
    run = passrate.example("text", "check failed", fake)
    assert passrate.transcript(run, fake) and passrate.billed_prompt_tokens(run, fake) == run.prompt_tokens


def test_price_tables_say_undefined_and_never_divide_by_zero(fake):
    text = price.get("text", "anthropic", fake)
    assert text.per_solved_usd == pytest.approx(text.usd / 1)
    assert price.usd(None) == "未定义" and price.count(None) == "未定义"
    assert len(price.dollar_rows(fake)) == 5 and len(price.dollar_rows(fake)[0]) == 1 + 2 * 2
    assert price.token_rows(fake)[2][1:] == ["2 / 2", "0", "0", "0", "0"]
    assert price.figure(fake).data


def test_the_lab_reports_a_selection_and_refuses_an_empty_one(fake):
    full = Selection.of(fake)
    assert full.seeds == (1, 3) and set(full.designs) == {"text", "constrained", "oracle"}
    text = report(fake, full)
    assert "通过 1 / 6" in text and "没有发过一个请求" in text and "没有证据说两者不同" in text
    with pytest.raises(ValueError, match="没有运行"):
        report(fake, Selection((), ("text",), (1, 3)))
    with pytest.raises(ValueError, match="没有规则"):
        report(fake, full, rule="nope")
    app = EvaluateApp(fake)
    before = app.out.value
    app.seeds.value = (1, 1)
    assert app.out.value != before and "种子 1–1" in app.out.value
    app.tasks.value = ()
    assert "⚠" in app.out.value


def test_checkers_ask_first_and_compute_their_answers():
    assert a9_2.check_runs_for_rare(None) == ASK
    n = a9_2.runs_for_rare()
    assert stats.wilson(0, n).high < 0.05 <= stats.wilson(0, n - 1).high
    assert a9_2.check_runs_for_rare(n).startswith("对") and a9_2.check_runs_for_rare(n + 1).startswith("不对")
