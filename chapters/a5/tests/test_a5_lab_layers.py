"""The A5 lab's A5·3 section: it shows the summaries the model wrote in the recording, layer by layer,
judged as the page judges them, and bad choices get a Chinese message instead of a crash."""
import json

import pytest

from chapters.a5.figures.layers import LABELS, share, shares
from chapters.a5.lab.layers import LayerApp, LayerLab


@pytest.fixture(scope="module")
def lab():
    return LayerLab()


def test_every_summary_shown_is_the_one_in_the_session_file(lab):
    info = next(s for s in lab.rec.manifest["sessions"] if s["variant"] == "structured" and s["seed"] == 3)
    entries = [json.loads(line) for line in (lab.rec.path / info["file"]).read_text(encoding="utf-8").splitlines()]
    written = [e["response"]["choices"][0]["message"]["content"] for e in entries if e["type"] == "compaction"]
    text = lab.describe("structured", seed=3, depth=3)
    assert len(written) == 3 and all(summary.strip() in text for summary in written)
    assert [layer.depth for layer in lab.run("structured", 3, 2)] == [1, 2]
    assert "第 3 次压缩" not in lab.describe("structured", seed=3, depth=2)


def test_the_lab_judges_the_rule_as_the_page_does(lab):
    cells = shares(lab.rows)
    for variant in LABELS:
        for depth in (1, 2, 3):
            runs = [lab.run(variant, seed, depth)[-1] for seed in lab.seeds(variant)]
            cell = share(cells, variant, depth)
            assert (len(runs), sum(r.reaches_model for r in runs)) == (cell.runs, cell.reaches_model)
            assert sum(r.in_summary is not None for r in runs) == cell.in_summary


@pytest.mark.parametrize("args, message", [
    (("summary-of-summaries", 1, 1), "做法只能是"),
    (("free", 99, 1), "没有第 99 次"),
    (("free", "1", 1), "没有第 '1' 次"),
    (("free", 1, 0), "第几次压缩要在 1 和 3 之间"),
    (("agents-md", 1, 4), "收到 4"),
])
def test_bad_choices_are_refused_in_chinese(lab, args, message):
    with pytest.raises(ValueError, match=message):
        lab.describe(*args)


def test_the_app_follows_its_controls(lab):
    app = LayerApp(lab)
    first = app.panel.value
    app.depth.value = 1
    assert app.panel.value != first and "第 2 次压缩" not in app.panel.value
    app.seed.value = 20
    app.variant.value = "agents-md"
    assert app.seed.value == 20 and "AGENTS.md" in app.panel.value and "lab-error" not in app.panel.value


def test_a_variant_with_other_runs_moves_the_run_choice_to_one_it_has():
    lab = LayerLab()
    lab.rows = [r for r in lab.rows if r.variant != "keep-user" or r.seed <= 5]
    app = LayerApp(lab)
    app.seed.value = 12
    app.variant.value = "keep-user"
    assert list(app.seed.options) == [1, 2, 3, 4, 5] and app.seed.value == 1
    assert "lab-error" not in app.panel.value and "第 1 次运行" in app.panel.value
