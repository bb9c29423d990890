"""The calculator lab (prefixlab/presenting/lab/): every control -> result, without a browser."""
from __future__ import annotations

import json
import shutil

import pytest

from prefixlab.cache import calculator, counterfactual, pricing, rules
from prefixlab.cache.rules.anthropic import explicit, min_cacheable_tokens
from prefixlab.presenting import report
from prefixlab.presenting.lab import DEFAULT_RECORDING, CalculatorApp, CalculatorLab, resolve, run_module
from prefixlab.paths import REPO_ROOT
from prefixlab.presenting.lab import state as state_module
from prefixlab.presenting.lab.render import break_lines

SHIPPED = "data/recordings/t10-smollm2-llamacpp"


@pytest.fixture(scope="module")
def rec():
    return calculator.load_recording(DEFAULT_RECORDING)


@pytest.fixture
def lab():
    return CalculatorLab()


def dicts(rows):
    return calculator.as_dicts(rows)


def test_default_state_is_the_recorded_history_under_the_recorded_rule(lab, rec):
    s = lab.state
    assert s.error is None
    assert s.controls.recording == SHIPPED  # relative: no absolute path in a notebook
    assert s.controls.session == counterfactual.history_session(rec)
    assert (s.controls.rule, s.controls.k, s.controls.breakpoint) == ("llamacpp", 0, None)
    assert s.rows == dicts(calculator.analyze(rec, "llamacpp", sessions=s.controls.session))
    assert s.comparable and all(r["ok"] for r in s.rows)
    assert s.rounds == [r["round"] for r in s.rows] and s.controls.round in s.rounds
    assert s.rules == calculator.rule_names()
    assert s.models == pricing.known_models("anthropic")
    assert [sid for _, sid in s.sessions] == [x["id"] for x in rec.manifest["sessions"]]
    assert "口径" in repr(s.provenance) and SHIPPED in repr(s.provenance)


def test_k_slider_gives_the_counterfactual_rows(lab, rec):
    history = lab.state.controls.session
    s = lab.update(k=3)
    assert s.error is None
    assert s.rows == dicts(counterfactual.predict(rec, 3, "llamacpp", history))
    assert s.controls.round == 4  # the first round that carries the refreshed prompt
    row = next(r for r in s.rows if r["round"] == 4)
    assert s.break_info["block"] == row["break_block"] and s.break_info["before"] == row["before_break"]
    assert s.break_info["next_blocks"] == row["next_blocks"]
    # recorded counterfactual: measured values are there and the prediction agrees
    assert all(r["measured"] is not None and r["ok"] for r in s.rows)
    assert lab.update(k=0).rows == dicts(calculator.analyze(rec, "llamacpp", sessions=history))


def test_anthropic_rule_model_and_breakpoint_reach_the_calculator(lab, rec):
    history = lab.state.controls.session
    s = lab.update(rule="anthropic", model="claude-haiku-4-5", breakpoint="memory_header")
    assert s.error is None
    expected = calculator.analyze(rec, "anthropic", sessions=history, model="claude-haiku-4-5",
                                  breakpoints=explicit("memory_header"))
    assert s.rows == dicts(expected)
    assert not s.comparable  # measured by llama-server: shown, not compared
    assert f"{min_cacheable_tokens('claude-haiku-4-5'):,}" in s.min_tokens
    assert "memory_header" in s.breakpoints and "tools" not in s.breakpoints  # API blocks are per tool
    # another rule has no breakpoints: the control is cleared, not silently kept
    assert lab.update(rule="vllm").controls.breakpoint is None


def test_model_missing_from_the_newest_minimum_table_uses_the_older_one(lab):
    s = lab.update(rule="anthropic", model="claude-haiku-3")
    assert s.error is None and "2026-02" in s.min_tokens


def test_round_picker_moves_break_and_cost(lab):
    s = lab.update(round=2)
    assert s.break_info["round"] == 2 and s.cost["round"] == 2
    row = next(r for r in s.rows if r["round"] == 2)
    assert (s.break_info["read"], s.break_info["fresh"]) == (row["read"], row["fresh"])


def test_cost_terms_are_tokens_times_price_times_multiplier(lab, rec):
    s = lab.update(model="claude-sonnet-4-6", round=3)
    # Claude prices, so the cost comes from Claude's cache rule, not from the llama.cpp rows shown
    row = next(r for r in calculator.analyze(rec, "anthropic", sessions=s.controls.session, model="claude-sonnet-4-6")
               if r.round == 3)
    expected = pricing.request_cost(row.prediction, "claude-sonnet-4-6")
    assert s.cost["total"] == pytest.approx(expected.total)
    for term in s.cost["terms"]:
        assert term["usd"] == pytest.approx(term["tokens"] * term["base_price"] * term["multiplier"] / 1e6)
    assert sum(t["usd"] for t in s.cost["terms"]) == pytest.approx(s.cost["total"])
    assert any("换算" in n for n in s.notes)


def test_comparison_is_refresh_vs_no_refresh(lab, rec):
    s = lab.state
    model = s.controls.model
    expected = report.group_costs(rec, calculator.analyze(rec, "anthropic", model=model), model)
    assert s.comparison["ratio"] == pytest.approx(expected.ratio)
    s = lab.update(k=5)
    # the counterfactual against the same history alone on an empty cache
    history = [i for i, c in enumerate(rec.calls) if c.session == s.controls.session]
    baseline = calculator.predict_indices(calculator.prepare(rec), history, "anthropic",
                                          calculator.rule_config(rec, "anthropic", model=model))
    preds = [r.prediction for r in counterfactual.predict(rec, 5, "anthropic", s.controls.session, model=model)]
    cmp = pricing.refresh_vs_no_refresh(preds, baseline, s.controls.model)
    assert s.comparison["refresh_usd"] == pytest.approx(cmp.refresh.total)
    assert s.comparison["no_refresh_usd"] == pytest.approx(cmp.no_refresh.total)


def test_bad_path_shows_an_error_and_keeps_the_recording(lab):
    before = lab.update(k=2)
    s = lab.open("data/recordings/no-such-recording")
    assert s.error == "无法打开录制:没有 data/recordings/no-such-recording 这个目录"
    assert s.controls == before.controls and s.rows == before.rows
    assert lab.open("   ").error == "请输入录制目录的路径"
    # the next good change clears the message
    assert lab.update(k=1).error is None


@pytest.mark.parametrize("damage, message", [
    (lambda m: m.pop("order"), "'order' is a required property"),
    (lambda m: m.update(status="incomplete"), "not complete"),
    (lambda m: m["provenance"]["tokenizer"].update(sha256="0" * 64), "tokenizer sha256"),
])
def test_recording_that_fails_validation_shows_the_validator_message(lab, tmp_path, damage, message):
    broken = tmp_path / "broken"
    shutil.copytree(DEFAULT_RECORDING, broken)
    manifest = json.loads((broken / "manifest.json").read_text(encoding="utf-8"))
    damage(manifest)
    (broken / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    before = lab.state
    s = lab.open(broken)
    assert message in s.error
    assert s.controls == before.controls and s.rows == before.rows


def test_invalid_json_manifest(lab, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json", encoding="utf-8")
    assert "not valid JSON" in lab.open(broken).error


def test_a_copy_anywhere_opens_like_the_shipped_one(lab, tmp_path):
    mine = tmp_path / "my-t10"
    shutil.copytree(DEFAULT_RECORDING, mine)
    s = lab.open(str(mine))
    assert s.error is None and s.controls.recording == str(mine)
    assert s.rows == CalculatorLab().state.rows


def test_relative_paths_are_tried_from_the_repo_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # like a notebook running in labs/
    path, shown = resolve(SHIPPED)
    assert path == DEFAULT_RECORDING.resolve() and shown == SHIPPED


def test_out_of_range_settings_are_refused_with_a_message(lab):
    before = lab.state
    k_max = before.k_max
    s = lab.update(k=k_max + 1)
    assert f"0..{k_max}" in s.error and s.controls == before.controls
    assert "没有会话" in lab.update(session="nope").error
    assert "价格表里没有模型" in lab.update(model="gpt-4").error
    with pytest.raises(TypeError, match="unknown control"):
        lab.update(colour="red")


def test_sessions_without_a_counterfactual_disable_the_slider(lab, rec):
    fork = next(s["id"] for s in rec.manifest["sessions"] if s["kind"] == "fork")
    s = lab.update(k=3, session=fork)
    assert "k=3" in s.error  # k belongs to a main session
    s = lab.update(session=fork)
    assert s.error is None and s.k_max == 0 and s.controls.k == 0 and "主会话" in s.k_note
    assert s.rows == dicts(calculator.analyze(rec, "llamacpp", sessions=fork))


def test_report_prints_the_table_and_the_numbers(lab):
    text = lab.report()
    s = lab.state
    assert s.summary in text and s.controls.session in text
    assert f"{s.cost['total']:.6f}" in text and f"{s.comparison['ratio']:.3f}" in text
    assert "/tmp" not in text and str(DEFAULT_RECORDING) not in text


def test_widgets_drive_the_lab():
    from prefixlab.presenting.book import setup_notebook

    setup_notebook()  # figures carry the book's HTML next to plotly's JSON
    app = CalculatorApp()
    assert app.k.value == 0 and app.session.value == app.lab.state.controls.session
    app.k.value = 4
    assert app.lab.state.controls.k == 4 and app.round.value == 5
    assert app.breakpoint.disabled
    app.rule.value = "anthropic"
    assert not app.breakpoint.disabled
    assert app.breakpoint.value == "" and app.breakpoint.label == "(无)"
    app.breakpoint.value = "memory_header"
    assert app.lab.state.controls.breakpoint == "memory_header"
    assert "显式断点在 memory_header" in app.lab.state.scenario
    data = app.chart.outputs[0]["data"]
    assert "text/html" in data and "application/vnd.plotly.v1+json" in data and "text/plain" not in data
    app.breakpoint.value = ""
    assert app.lab.state.controls.breakpoint is None
    app.breakpoint.value = "memory_header"
    app.path.value = "nowhere/at/all"
    app.open_button.click()
    assert "没有 nowhere/at/all 这个目录" in app.error.value and app.lab.state.controls.k == 4
    app.session.value = next(sid for _, sid in app.session.options if "fork" in sid)
    assert app.k.disabled and app.k.value == 0
    assert app._repr_mimebundle_()["text/plain"] == CalculatorApp.TEXT


def test_run_module_streams_output_and_returns_the_exit_code(capsys):
    code = run_module("prefixlab.verify", "data/recordings/no-such-recording")
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("$ python -m prefixlab.verify data/recordings/no-such-recording")
    assert "no manifest.json" in out


def test_a_bad_first_recording_raises_with_the_message():
    with pytest.raises(ValueError, match="没有 data/recordings/no-such-recording 这个目录"):
        CalculatorLab("data/recordings/no-such-recording")


def test_a_failed_change_keeps_the_text_table_of_the_last_good_state(lab):
    text = lab.report()
    lab.update(k=99)
    assert lab.report().startswith(text.split("\n错误")[0]) and "错误: k=99" in lab.report()


def test_a_recording_without_counterfactuals_still_gets_the_slider(lab, tmp_path):
    # what `record_t10 --no-counterfactuals` writes: main sessions and the fork only
    quick = tmp_path / "quick"
    shutil.copytree(DEFAULT_RECORDING, quick)
    manifest = json.loads((quick / "manifest.json").read_text(encoding="utf-8"))
    dropped = {s["id"] for s in manifest["sessions"] if s["kind"] == "counterfactual"}
    manifest["sessions"] = [s for s in manifest["sessions"] if s["id"] not in dropped]
    manifest["order"] = [o for o in manifest["order"] if o["session"] not in dropped]
    (quick / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    s = lab.open(quick)
    assert s.error is None and s.k_max == lab.update(recording=DEFAULT_RECORDING).k_max
    lab.open(quick)
    s = lab.update(k=3)
    assert s.error is None and all(r["measured"] is None for r in s.rows)  # built, not measured
    assert s.break_info["measured"] is None and "服务器实测" not in "\n".join(break_lines(s.break_info))


def test_day_two_is_shown_both_ways_under_claudes_cache(lab):
    s = lab.update(session="frozen-day2", model="claude-opus-5")
    recorded, next_day = s.readings
    assert "录制" in recorded["label"] and "24 小时" in next_day["label"]
    # seconds after day 1, Claude's cache still holds day 1's entries; a day later it holds nothing
    assert recorded["read"] > next_day["read"] and recorded["usd"] < next_day["usd"]
    assert "本地服务器的性质" in lab.report()


def test_an_openai_rule_shows_its_own_two_readings(lab):
    s = lab.update(session="frozen-day2", rule="openai-breakpoints")
    assert all(r["rule"] == rules.get("openai-breakpoints").LABEL and r["usd"] is None for r in s.readings)
    assert s.readings[-1]["label"].startswith("隔一天")


# -- issue 34: the labs as a learner uses them (Run All, then play) ---------------------------------

def test_record_your_own_cells_do_nothing_until_a_server_is_chosen(capsys):
    from prefixlab.presenting.lab import own_machine as own

    assert not own.wants(None, "录制 T10", "几分钟")
    out = capsys.readouterr().out
    assert "没有运行" in out and 'SERVER = "course"' in out
    assert not own.wants({"url": "http://127.0.0.1:8080/v1"}, "录制 T10", "几分钟")
    assert "缺少" in capsys.readouterr().out
    assert not own.wants("course-server", "录制 T10", "几分钟")
    assert own.wants("course", "录制 T10", "约 5 分钟")
    assert "预计 约 5 分钟" in capsys.readouterr().out  # the time cost, before anything runs
    assert not own.wants({"url": "u", "model": "m", "tokenizer": "t", "template": "x"}, "第一步", "几秒",
                         course_only=True)  # a missing tokenizer file is named before the server is asked
    assert own.record_args("course", quick=True) == ["--no-counterfactuals"]
    mine = {"url": "http://127.0.0.1:8080/v1", "model": "m", "tokenizer": "a.json", "template": "b.jinja"}
    assert own.record_args(mine, quick=False) == ["--server-url", mine["url"], "--model", "m",
                                                  "--tokenizer", "a.json", "--template", "b.jinja"]


def test_a_second_recording_run_gets_a_new_directory_or_a_clear_message(monkeypatch, capsys):
    from prefixlab.presenting.lab import own_machine as own

    first = own.new_out("a6-2")
    assert first.startswith("data/recordings/my-a6-2-") and not (REPO_ROOT / first).exists()
    monkeypatch.setattr(own, "run_module", lambda *a: pytest.fail("must not record into an existing directory"))
    assert own.record("a6-2", "data/recordings/t10-smollm2-llamacpp", "course") is None
    out = capsys.readouterr().out
    assert "已经存在" in out and "incomplete" not in out
    assert not own.recorded(first) and "先在第二步录一份" in capsys.readouterr().out
    calls = []
    monkeypatch.setattr(own, "run_module", lambda *a: calls.append(a) or 0)
    assert own.record("a6-2", first, "course") == 0
    assert calls == [("prefixlab", "record", "a6-2", first, "--no-counterfactuals")]


def test_record_your_own_guards_every_long_cell():
    import nbformat

    nb = nbformat.read(REPO_ROOT / "labs" / "record-your-own.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any("skip-execution" in c.metadata.get("tags", []) or "nbval-skip" in c.metadata.get("tags", [])
                   for c in code)  # safe under Run All, so nbval runs every cell
    assert any(c.source.startswith("SERVER = None") for c in code)
    for c in code:
        if any(s in c.source for s in ("LlamaServer(", "own.record(", "run_module(", "CalculatorLab(OUT)")):
            assert "if own.wants(SERVER" in c.source or "if own.recorded(OUT)" in c.source, c.source
    text = "".join(c.source for c in nb.cells)
    assert 'own.record("a6-2"' in text and "prefixlab.record_t10" not in text and "log=print" in text
    outputs = "".join(o.get("text", "") for c in code for o in c.get("outputs", []))
    assert "没有运行" in outputs and "Traceback" not in outputs


def test_the_breakpoint_says_what_it_did():
    demo = CalculatorLab()
    demo.update(k=3)
    s = demo.update(rule="anthropic", model="claude-opus-5", breakpoint="memory_body")
    assert s.breakpoint_effect.startswith("显式断点在 memory_body:和只用自动缓存的数完全一样")
    assert s.breakpoint_effect in demo.report()
    s = demo.update(breakpoint="memory_header")
    assert "从缓存读 +" in s.breakpoint_effect  # here it does read more, and the line says how much
    assert demo.update(breakpoint=None).breakpoint_effect == ""
    app = CalculatorApp(demo)
    app.breakpoint.value = "memory_body"
    assert "场景" in app.scenario.value and "和只用自动缓存的数完全一样" in app.scenario.value


def test_learner_facing_text_of_the_calculator_is_chinese(lab):
    assert lab.open("data/recordings").error == ("无法打开录制:data/recordings 不是一份录制(里面没有 manifest.json);"
                                                "它里面的录制有 " + "、".join(
                                                    p.parent.name for p in sorted((REPO_ROOT / "data/recordings")
                                                                                  .glob("*/manifest.json"))) + ",请选其中一个")
    s = lab.state
    assert "个请求" in s.summary and "requests" not in s.summary
    assert "requests" not in lab.update(rule="mlx").summary
    for sid in (i["id"] for i in lab._replay.recording.manifest["sessions"]):
        note = state_module.k_range(lab._replay.recording, sid)[1].replace(sid, "")
        assert not any(w in note for w in ("session", "remember call", "counterfactual")), note


def test_changing_the_session_keeps_k_where_it_can(lab):
    lab.update(k=3)
    s = lab.update(session="refresh-day1")
    assert s.controls.k == 3 and s.k_changed == ""
    fork = next(i["id"] for i in lab._replay.recording.manifest["sessions"] if i["kind"] == "fork")
    s = lab.update(session=fork)
    assert s.controls.k == 0 and s.k_changed == f"换到会话 {fork} 后,k 从 3 改成了 0(这个会话的 k 最多到 0)"
    assert s.k_changed in lab.report()


def test_calculator_controls_are_labelled_and_say_how_to_start():
    app = CalculatorApp()
    assert app.path.description == "或输入路径"
    assert "运行这个单元格" in CalculatorApp.TEXT and "前缀缓存计算器" in CalculatorApp.TEXT
