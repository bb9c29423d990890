"""A7·4's review half: the recordings hold what the page says, the checkers accept the right answer and
hint without it, no output before an exercise prints its answer, the live checker reads as documented."""
import pytest

from chapters.a7.exercises import a7_4
from chapters.a7.figures import review as rv
from chapters.a7.tests.test_a7_pages import outputs_before
from miniagent.children import child_entries, open_child
from miniagent.session import Session, usage_ledger
from prefixlab.cache import calculator
from prefixlab.presenting.answers import ASK

PAGE = "a7-4-review-and-parallel.ipynb"
REC = rv.scripted()
LIVE = rv.live()
REVIEWS = rv.reviews(REC)
ITEMS = rv.live_reviews(LIVE)


def test_every_request_children_included_is_predicted_exactly():
    rows = calculator.analyze(REC)
    assert rows and all(r.ok for r in rows)
    assert {REC.session_info(r.session)["kind"] for r in rows} == {"main", "child"}


def test_the_reviewer_is_linked_to_its_parent_and_its_usage_adds_up():
    parent = Session.open(REC.path / "fresh.jsonl")
    [entry] = child_entries(parent)
    child = open_child(parent, entry)
    assert entry["mode"] == "fresh" and entry["status"] == "done"
    assert child.entries[0]["parentSession"] == {"path": "fresh.jsonl", "entryId": entry["id"]}
    assert usage_ledger(child.entries) == entry["usage"] and entry["usage"]["calls"] == len(REC.session_calls("fresh-child1"))
    assert child_entries(Session.open(REC.path / "self.jsonl")) == []


def test_self_review_reads_its_prefix_and_the_parent_comes_back_cold_after_a_fresh_reviewer():
    me, fresh = REVIEWS["self"], REVIEWS["fresh"]
    [review] = me.review
    assert review.request.measured > 0.9 * review.request.prompt_tokens
    child_first = next(s for s in fresh.review if s.request.role == "child")
    assert fresh.back.request.measured == child_first.request.measured
    assert fresh.back.recomputed > 5 * me.back.recomputed
    trip = lambda r: r.total(r.review + [r.back])["recomputed"]  # noqa: E731
    assert trip(fresh) > 2 * trip(me)


def test_on_the_cloud_the_parent_keeps_its_prefix():
    assert a7_4.cloud_choice(REVIEWS["fresh"]) == "B"


def test_the_checkers_accept_the_answer_and_hint_without_it():
    answer = REVIEWS["fresh"].back.request.measured
    assert a7_4.check_back_cached(REC, None) == ASK
    assert a7_4.check_back_cached(REC, answer).startswith("对")
    wrong = a7_4.check_back_cached(REC, answer + 17)
    assert wrong.startswith("不对") and f"{answer:,}" not in wrong
    assert a7_4.check_cloud_back(REVIEWS, None) == ASK
    assert a7_4.check_cloud_back(REVIEWS, "B").startswith("对")
    assert a7_4.check_cloud_back(REVIEWS, "a").startswith("不对")
    assert a7_4.check_cloud_back(REVIEWS, "D").startswith("答案是一个字母")
    tally = rv.live_tally(ITEMS)
    s, f = tally["self"]["bug_verdict"], tally["fresh"]["bug_verdict"]
    right = "self" if s > f else "fresh" if f > s else "same"
    assert a7_4.check_live_verdict(ITEMS, None) == ASK
    assert a7_4.check_live_verdict(ITEMS, right).startswith("对")
    assert a7_4.check_live_verdict(ITEMS, next(c for c in a7_4.LIVE_CHOICES if c != right)).startswith("不对")
    assert a7_4.check_live_verdict(ITEMS, "both").startswith("答案是")


def test_no_output_before_an_exercise_prints_its_answer():
    answer = REVIEWS["fresh"].back.request.measured
    shown = outputs_before(PAGE, "check_back_cached")
    assert f"{answer:,}" not in shown and f"\"{answer}\"" not in shown and f">{answer}<" not in shown
    shown = outputs_before(PAGE, "check_live_verdict")
    assert "判为 BUG" not in shown and "评审的开头" not in shown


@pytest.mark.parametrize("text, verdict, named", [
    ("BUG\n- to_kelvin subtracts 273.15; use to_celsius(temperature) + 273.15", "BUG", True),
    ("BUG: it must add 273.15, not subtract it", "BUG", True),
    ("STATUS: OK\n\nBUG: the correct formula is `c + 273.15`.", "OK", True),   # names it, first line says OK
    ("BUG: should be `c - 273.15`, not `c + 273.15`.", "BUG", False),       # the wrong way round
    ("BUG or OK", "", False),                                               # an echo of the request
    ("STATUS: blocked", "", False),
    ("BUG: to_kelvin is not correct", "BUG", False),                        # no fix given
    ("BUG: subtracting 273.15 is right, not 273.14", "BUG", False),
    ("Looks OK to me", "OK", False),
])
def test_the_live_checker(text, verdict, named):
    assert rv.verdict(text) == verdict and rv.names_bug(text) is named


def test_the_live_recording_has_every_run_once():
    runs = LIVE.manifest["runs"]
    assert sorted((r.condition, r.seed) for r in ITEMS) == sorted((c, s) for c in rv.VARIANTS for s in range(1, runs + 1))
    assert all(r.completion_tokens <= LIVE.manifest["max_tokens"] for r in ITEMS)


def test_no_output_before_the_parallel_exercises_prints_their_answers():
    from chapters.a7.exercises import a7_4_parallel as ex_par
    from chapters.a7.figures import parallel as par

    share = ex_par.slot_share()
    # the parallel half's outputs (the review half's figure happens to hold the same number as a cloud read)
    shown = outputs_before(PAGE, "check_slot_share")
    shown = shown[len(outputs_before(PAGE, "par.load_parallel()")):]
    assert f"{share:,}" not in shown and f"\"{share}\"" not in shown and f">{share}<" not in shown
    two, _ = par.load_parallel()
    prompt, cached = par.parallel_effect(two, "parallel-replies").child_first["child2"]
    assert cached < prompt  # the second child reads less than its prompt: the page asks how much, after this
    shown = outputs_before(PAGE, "check_second_child_first")
    assert "parallel-replies-child2" not in shown
