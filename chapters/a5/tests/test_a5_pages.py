"""Chapter A5's pages: the chapter page lists every A5 recording; every exercise checker accepts the
right answer, hints without the number otherwise, and no output of a lesson prints an answer."""
import json
from pathlib import Path

import nbformat
import pytest

from chapters.a5.exercises import a5_1, a5_2, a5_3, a5_4
from chapters.a5.figures import layers, masking, summary_call
from prefixlab.cache import calculator
from prefixlab.paths import RECORDINGS
from prefixlab.presenting.answers import ASK
from prefixlab.recording.experiments import experiments
from prefixlab.recording.format import find_recordings, load

BOOK = Path(__file__).resolve().parents[3] / "book" / "a5"


def outputs(page: str) -> str:
    nb = nbformat.read(BOOK / page, as_version=4)
    return json.dumps([o for c in nb.cells if c.cell_type == "code" for o in c.outputs], ensure_ascii=False)


def test_every_a5_recording_is_in_the_chapter_table():
    names = {exp.recorder.experiment for exp in experiments().values() if exp.chapter == "a5"}
    recordings = [p.name for p in find_recordings()
                  if json.loads((p / "manifest.json").read_text(encoding="utf-8"))["experiment"] in names]
    assert len(recordings) >= 8
    nb = nbformat.read(BOOK / "index.ipynb", as_version=4)
    table = next(c for c in nb.cells if c.cell_type == "code" and "LESSON_OF" in c.source)
    shown = "".join(o["data"]["text/plain"] for o in table.outputs if "data" in o)
    assert [r for r in recordings if f"data/recordings/{r} " not in shown] == []


def _answers():
    overflow = load(RECORDINGS / "a5-1-overflow-smollm2-llamacpp")
    recs2, recs4 = masking.recordings(), summary_call.recordings()
    last = max(c.round for c in recs2["reuse0"].session_calls("masking"))
    openai = next(r.read for r in calculator.analyze(recs2["reuse0"], "openai")
                  if r.round == last)
    placeholder = next(c.cached_tokens for c in recs2["placeholder-reuse256"].session_calls("masking") if c.round == last)
    after = summary_call.first_after(recs4["same-prefix"], "same-prefix").cached_tokens
    anthropic = next(r.read for r in calculator.analyze(recs4["separate"], "anthropic", sessions="reserve",
                                                        model=a5_4.ANTHROPIC_MODEL)
                     if recs4["separate"].calls[r.seq].kind == "compaction")
    rec3 = layers.recording()
    rows3 = layers.layers(rec3)
    return {
        "a5-3-layered-summaries.ipynb": [
            (lambda g: a5_3.check_rule_tokens(rec3, g), a5_3.rule_tokens(rec3)),
            (lambda g: a5_3.check_truncated(rows3, g),
             sum(1 for r in rows3 if r.variant == "structured" and r.truncated))],
        "a5-1-when-to-compact.ipynb": [
            (lambda g: a5_1.check_after_refusal(overflow, g), overflow.session_calls("retry")[0].cached_tokens),
            (lambda g: a5_1.check_threshold("pi", 200_000, g), 200_000 - a5_1.PI_RESERVE_TOKENS),
            (lambda g: a5_1.check_threshold("codex", 200_000, g), 180_000)],
        "a5-2-mask-tool-outputs.ipynb": [
            (lambda g: a5_2.check_placeholder_round(recs2, last, g), placeholder),
            (lambda g: a5_2.check_openai_round(recs2["reuse0"], last, g), openai)],
        "a5-4-summary-call.ipynb": [
            (lambda g: a5_4.check_after_compaction(recs4, g), after),
            (lambda g: a5_4.check_anthropic_summary(recs4, g), anthropic)],
    }


ANSWERS = _answers()


@pytest.mark.parametrize("page", list(ANSWERS))
def test_checkers_accept_the_answer_and_hint_without_it(page):
    for check, answer in ANSWERS[page]:
        assert check(None) == ASK
        assert check(answer).startswith("对")
        wrong = check(answer + 7)
        assert wrong.startswith("不对") and f"{answer:,}" not in wrong and str(answer) not in wrong


@pytest.mark.parametrize("page", list(ANSWERS))
def test_no_output_of_the_page_prints_an_answer(page):
    shown = outputs(page)
    for _, answer in ANSWERS[page]:
        if answer >= 100:  # small numbers occur everywhere (rounds, counts)
            assert f"{answer:,}" not in shown and f"\"{answer}\"" not in shown, (page, answer)
