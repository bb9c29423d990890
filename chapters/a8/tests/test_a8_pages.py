"""Chapter A8's pages and lab: every exercise checker accepts the right answer and hints without the
number otherwise; no output of a page prints an answer before it is asked; the chapter page bills
every shipped recording; the figures build from the shipped recordings."""
import json
import re
from pathlib import Path

import nbformat
import pytest

from chapters.a8.exercises import a8_1, a8_2, a8_3, a8_4
from chapters.a8.figures import ledger, usage
from chapters.a8.lab import your_bill
from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill
from prefixlab.presenting.answers import ASK
from prefixlab.recording.format import find_recordings, load

ROOT = Path(__file__).resolve().parents[3]
BOOK = ROOT / "book" / "a8"


def outputs(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return json.dumps([o for c in nb.cells if c.cell_type == "code" for o in c.outputs], ensure_ascii=False)


def _answers():
    compaction = [c for c in load(RECORDINGS / a8_1.SUMMARY_RECORDING).calls if c.kind == "compaction"]
    t11, t13 = load(RECORDINGS / a8_2.COMPACTED[0]), load(RECORDINGS / a8_2.FORK[0])
    day1 = bill.bill_session(RECORDINGS / a8_2.COMPACTED[0] / t11.session_info(a8_2.COMPACTED[1])["file"])
    fork_info = t13.session_info(a8_2.FORK[1])
    context = [c for c in t13.session_calls(a8_2.FORK[1])]
    return {
        "a8-1-normalize-usage.ipynb": [
            (a8_1.check_summary_input, sum(c.prompt_tokens - c.cached_tokens for c in compaction)),
            (a8_1.check_responses_usage, 5120 - 4864)],
        "a8-2-ledger-not-context.ipynb": [
            (a8_2.check_compacted_day, a8_2.missed(*a8_2.COMPACTED)),
            (a8_2.check_fork_leaf, a8_2.missed(*a8_2.FORK))],
        "a8-3-whole-bill.ipynb": [
            (a8_3.check_budget_tokens, _budget_stop_tokens())],
        "a8-4-six-providers.ipynb": [
            (a8_4.check_qwen_older_minimum, a8_4.qwen_older_minimum()),
            (a8_4.check_deepseek_interval, a8_4.deepseek_interval())],
    }, day1, fork_info, context


def _budget_stop_tokens() -> int:
    """What the budget run's stopped entry says it had used (the checker computes it from the bill)."""
    rec = load(RECORDINGS / "a8-3-whole-task-smollm2-llamacpp")
    path = rec.path / rec.session_info("budget")["file"]
    stop = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][-1]
    assert stop["type"] == "stopped"
    return stop["tokens"]


ANSWERS, T11_DAY1, FORK_INFO, FORK_CALLS = _answers()


def test_the_answers_are_what_the_lessons_say():
    # the compacted day: everything but the calls whose answers are in context at the leaf
    (_, compacted), (_, fork) = ANSWERS["a8-2-ledger-not-context.ipynb"]
    assert 0 < compacted < T11_DAY1.total.prompt
    # the fork's leaf sees rounds 1..5 of day 1 and its own two calls
    assert len(FORK_CALLS) == 2 and fork < 50_000


@pytest.mark.parametrize("page", list(ANSWERS))
def test_checkers_accept_the_answer_and_hint_without_it(page):
    for check, answer in ANSWERS[page]:
        assert check(None) == ASK
        assert check(answer).startswith("对")
        wrong = check(answer + 7)
        assert wrong.startswith("不对") and f"{answer:,}" not in wrong and str(answer) not in wrong


ORDER = ["index.ipynb", "a8-1-normalize-usage.ipynb", "a8-2-ledger-not-context.ipynb", "a8-3-whole-bill.ipynb",
         "a8-4-six-providers.ipynb"]


@pytest.mark.parametrize("page", list(ANSWERS))
def test_no_output_of_the_page_or_the_pages_before_prints_an_answer(page):
    shown = "".join(outputs(BOOK / p) for p in ORDER[:ORDER.index(page) + 1])
    for _, answer in ANSWERS[page]:
        for form in {f"{answer:,}", str(answer)}:  # as a number of its own, not a digit run inside another
            assert not re.search(rf"(?<![\w.,$]){re.escape(form)}(?![\d,])", shown), (page, answer)


def test_the_chapter_page_bills_every_shipped_recording():
    nb = nbformat.read(BOOK / "index.ipynb", as_version=4)
    table = next(c for c in nb.cells if c.cell_type == "code" and "find_recordings" in c.source)
    shown = "".join(o["data"]["text/plain"] for o in table.outputs if "data" in o)
    lines = [line.split(" | ")[0] for line in shown.splitlines()]
    assert [p.name for p in find_recordings(RECORDINGS) if p.name.removesuffix("-smollm2-llamacpp") not in lines] == []


def test_the_figures_build_and_their_numbers_add_up():
    rows = usage.booked_all()
    assert len(rows) == len(find_recordings(RECORDINGS))
    assert all(r.counted_twice == r.usage.cache_read for r in rows)  # llama-server reports no cache writes
    assert len(usage.figure(rows).data) == 3
    splits = ledger.splits()
    assert {(s.recording, s.session) for s in splits} >= {(r, s) for r, s, _ in ledger.SHOWN}
    for s in splits:
        assert s.ledger == bill.bill_session(RECORDINGS / s.recording / load(RECORDINGS / s.recording)
                                             .session_info(s.session)["file"]).total
        assert 0 < s.missed_share < 1
    assert len(ledger.figure(splits).data) == len(bill.PARTS)
    # the exercise's sessions are not drawn on the page
    assert a8_2.COMPACTED not in {(s.recording, s.session) for s in splits}


def test_the_lab_checkers():
    assert your_bill.check_requests(your_bill.DEFAULT, None) == ASK
    calls = your_bill.load(your_bill.DEFAULT).total.calls
    assert your_bill.check_requests(your_bill.DEFAULT, calls).startswith("对")
    assert your_bill.check_requests(your_bill.DEFAULT, calls + 1).startswith("不对")
    file, leaf = your_bill.main_session(your_bill.DEFAULT)
    seen = bill.context_vs_ledger(file, leaf)["context"].calls
    assert your_bill.check_context_calls(your_bill.DEFAULT, seen).startswith("对")
    assert your_bill.check_context_calls(file, seen).startswith("不对")  # the file's own leaf is the last fork
    assert len(your_bill.figure(your_bill.load(your_bill.DEFAULT)).data) == 2


def test_the_lab_asks_before_it_prints_the_bill():
    nb = nbformat.read(ROOT / "labs" / "a8" / "your-bill.ipynb", as_version=4)
    sources = [c.source for c in nb.cells if c.cell_type == "code"]
    first_check = next(i for i, s in enumerate(sources) if "check_requests" in s)
    first_render = next(i for i, s in enumerate(sources) if "render" in s)
    assert first_check < first_render


def test_the_whole_bill_is_the_servers_usage_to_the_token():
    rec = load(RECORDINGS / "a8-3-whole-task-smollm2-llamacpp")
    b = bill.bill(rec.path)
    for sid in [s["id"] for s in rec.manifest["sessions"]]:
        calls = [c for c in rec.calls if c.session == sid and c.response is not None]
        usage = b.by_session()[sid]
        assert (usage.calls, usage.prompt, usage.cache_read, usage.output) == (
            len(calls), sum(c.prompt_tokens for c in calls), sum(c.cached_tokens for c in calls),
            sum(c.response["usage"]["completion_tokens"] for c in calls))
    kinds = {c.kind for c in rec.calls if c.session == "whole"}
    assert kinds == {"model_call", "compaction"} and rec.session_info("whole-child1")["kind"] == "child"
    (root,) = bill.bill(rec.path / "budget.jsonl").roots
    (stop,) = root.stops
    assert "budget" in stop["reason"] and stop["tokens"] == root.total.prompt + root.total.output


def _cells_before(page: str, marker: str) -> str:
    """The outputs of the page's code cells before the first one whose source holds ``marker``."""
    nb = nbformat.read(BOOK / page, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    first = next(i for i, c in enumerate(code) if marker in c.source)
    return json.dumps([o for c in code[:first] for o in c.outputs], ensure_ascii=False)


def waterfall_steps_from_data() -> dict[str, int]:
    """Each fix -> how it changed the recomputed tokens, summed here from the recording's files: every
    request with a response in a design's session file and its children's (prompt minus cached)."""
    folder = RECORDINGS / "a8-3-waterfall-smollm2-llamacpp"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))

    def recomputed(design: str) -> int:
        files = [s["file"] for s in manifest["sessions"]
                 if s["id"] == design or (s.get("child_of") or {}).get("session") == design]
        usages = [(json.loads(line).get("response") or {}).get("usage") for f in files
                  for line in (folder / f).read_text(encoding="utf-8").splitlines()]
        return sum(u["prompt_tokens"] - u["prompt_tokens_details"]["cached_tokens"] for u in usages if u)

    mains = [s for s in manifest["sessions"] if s["kind"] == "main"]
    totals = [recomputed(s["id"]) for s in mains]
    return {s["fix"]: after - before for s, before, after in zip(mains[1:], totals, totals[1:])}


def test_the_waterfall_checkers_accept_the_answer_and_hint_without_it():
    steps = waterfall_steps_from_data()
    assert steps == a8_3.fix_steps()  # the checker's helper agrees with the files
    best = min(steps, key=steps.get)
    assert a8_3.check_biggest_fix(None) == ASK and a8_3.check_biggest_fix(best.upper()).startswith("对")
    for other in set(steps) - {best}:
        wrong = a8_3.check_biggest_fix(other)
        assert wrong.startswith("不对") and best not in wrong.lower()
    assert a8_3.check_biggest_fix("a9").startswith("写成")
    fork = steps["a7"]
    assert a8_3.check_fork_step(None) == ASK and a8_3.check_fork_step(fork).startswith("对")
    assert a8_3.check_fork_step(fork + a8_3.FORK_TOLERANCE).startswith("对")
    wrong = a8_3.check_fork_step(fork - a8_3.FORK_TOLERANCE - 1)
    assert wrong.startswith("不对") and str(abs(fork)) not in wrong


def test_nothing_before_the_waterfall_exercises_prints_their_answers():
    fork = waterfall_steps_from_data()["a7"]
    shown = "".join(outputs(BOOK / p) for p in ORDER[:3]) + _cells_before("a8-3-whole-bill.ipynb", "check_fork_step")
    assert not re.search(rf"(?<![\w.,$]){abs(fork)}(?![\d,])", shown)
    assert "A4 布局" not in _cells_before("a8-3-whole-bill.ipynb", "check_biggest_fix")  # no waterfall drawn before


def test_the_waterfall_adds_up_to_the_servers_usage_and_each_design_is_the_one_before_plus_one_fix():
    from chapters.a8.experiments.waterfall import CHOICES
    from chapters.a8.figures import waterfall

    rec = waterfall.recording()
    ds = waterfall.designs()
    assert [d.fix for d in ds] == [None, "a4", "a5", "a6", "a7"]
    b = bill.bill(rec.path)
    for d in ds:
        calls = [c for c in rec.calls if c.session in (d.id, f"{d.id}-child1")]
        assert d.usage.calls == len(calls) == b.by_session()[d.id].calls + b.by_session()[f"{d.id}-child1"].calls
        assert d.recomputed == sum(c.prompt_tokens - c.cached_tokens for c in calls)
        assert d.usd_a > 0 and d.usd_o > 0
    plans = rec.manifest["designs"]
    for before, after in zip(plans, plans[1:]):
        assert {c for c in CHOICES if before[c] != after[c]}
    for m in waterfall.MEASURES:  # the bars add up: the first, the steps, the last
        assert abs(getattr(ds[0], m) + sum(s for _, s in waterfall.steps(m)) - getattr(ds[-1], m)) < 1e-9
    assert [t.type for t in waterfall.figure().data] == ["bar"] * len(waterfall.MEASURES)  # in the book's plotly bundle
    # the page compares the seconds of the same first request in the designs with the date line
    firsts = {json.dumps(waterfall.calls(d.id)[0].request) for d in ds[1:]}
    assert len(firsts) == 1 and waterfall.facts()["first_prompt"] == waterfall.calls(ds[1].id)[0].prompt_tokens


def test_the_six_providers_page_replays_the_recording_and_each_rule_differs_where_the_page_says():
    from chapters.a8.figures import six

    # llama.cpp's rule reproduces every recorded cached_tokens of the session
    assert six.reads("llamacpp") == six.recorded()
    assert len(six.calls()) == len(six.reads("deepseek")) == len(six.prompts())
    i = six.after_compaction()
    assert six.kinds()[i - 1] == "compaction"
    # after the compaction DeepSeek reads only a whole unit, less than the longest common prefix
    assert 0 < six.reads("deepseek")[i] < six.recorded()[i]
    assert six.reads("anthropic")[i] == six.reads("openai")[i] == six.reads("qwen")[i] == 0
    # minimum length: OpenAI and Qwen read nothing below 1,024 tokens
    assert all(r == 0 for r, n in zip(six.reads("openai"), six.recorded()) if n < 1024)
    assert all(r == 0 for r, n in zip(six.reads("qwen"), six.recorded()) if n < 1024)
    # chunks: Kimi reads whole 256-token chunks
    assert all(r % 256 == 0 for r in six.reads("kimi"))
    # the gaps are shorter than the shortest TTL, so no read is lost to expiry
    assert six.max_gap() < 300
    costs = six.costs()
    assert set(costs) == {"anthropic", "openai", "deepseek", "kimi", "qwen"}
    for p in six.PROVIDERS[1:]:
        assert 0 < costs[p.rule].total < six.no_cache_cost(p)
    assert costs["deepseek"].usd_of("write_5m") == 0 and costs["anthropic"].usd_of("write_5m") > 0
    assert len(six.figure().data) == len(six.PROVIDERS) + 1
