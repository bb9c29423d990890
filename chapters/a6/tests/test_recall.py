"""The recall test of side lesson A6·R (chapters/a6/figures/recall.py) and its data."""
import re

import pytest
import yaml

from miniagent.memory import MemoryStore
from miniagent.variants.retrieve_memory import Retrieve
from miniagent.variants.select_memory import Select

from chapters.a6.paths import RECALL_DIR, T14_DIR
from chapters.a6.figures import recall


@pytest.fixture(scope="module")
def rows():
    return recall.measure(ks=range(1, 11))


def test_the_shipped_set_loads_and_its_readme_counts_are_right():
    notes, tasks = recall.load_recall_set()
    labels = sum(len(t.needs) for t in tasks)
    readme = (RECALL_DIR / "README.md").read_text(encoding="utf-8")
    assert f"{len(tasks)} requests" in readme and f"{len(notes)} notes" in readme and f"{labels} labels" in readme
    assert 30 <= len(notes) <= 60


def test_the_first_tasks_are_the_t14_session_word_for_word():
    _, tasks = recall.load_recall_set()
    script = yaml.safe_load((T14_DIR / "script.yml").read_text(encoding="utf-8"))
    users = [" ".join(turn["user"].split()) for turn in script["turns"]]
    assert [t.text for t in tasks[:len(users)]] == users


def test_frozen_carries_everything_and_the_two_retrieving_designs_carry_the_same_notes(rows):
    notes, tasks = recall.load_recall_set()
    frozen = [r for r in rows if r.strategy == "frozen"]
    assert len(frozen) == len(tasks) and all(r.recall == 1 and r.carried == tuple(notes) for r in frozen)
    assert len({r.tokens for r in frozen}) == 1
    select = {(r.k, r.task): r for r in rows if r.strategy == "select"}
    retrieve = {(r.k, r.task): r for r in rows if r.strategy == "retrieve"}
    assert select.keys() == retrieve.keys()
    assert all(select[key].carried == retrieve[key].carried for key in select)


def test_recall_and_tokens_never_drop_as_k_grows(rows):
    for strategy in ("select", "retrieve"):
        by_k = [s for s in recall.summary(rows) if s.strategy == strategy]
        assert [s.k for s in by_k] == list(range(1, 11))
        assert all(a.recall <= b.recall and a.tokens <= b.tokens for a, b in zip(by_k, by_k[1:]))
        frozen = next(s for s in recall.summary(rows) if s.strategy == "frozen")
        assert by_k[-1].tokens < frozen.tokens and by_k[-1].recall <= frozen.recall == 1


def test_the_carried_text_is_what_miniagent_puts_in_the_request(tmp_path):
    notes, tasks = recall.load_recall_set()
    store = MemoryStore(tmp_path / "MEMORY.md", char_limit=10_000)
    for text in notes.values():
        store.add(text)
    for task in tasks[:4]:
        select = Select("base", "", store, k=5)
        select.user_message(task.text, [])
        assert select().endswith(recall.carried("select", notes, task.text, 5)[1])
        retrieve = Retrieve("base", "", store, k=5)
        assert retrieve.user_message(task.text, []) == task.text + recall.carried("retrieve", notes, task.text, 5)[1]


def test_a_request_with_no_matching_word_carries_nothing_under_retrieve():
    notes, _ = recall.load_recall_set()
    assert recall.carried("retrieve", notes, "zebra giraffe", 5) == ([], "")
    ids, text = recall.carried("select", notes, "zebra giraffe", 5)
    assert ids == [] and text.endswith("(no saved note matches this request)")


def test_unknown_strategy_or_missing_k_is_refused():
    notes, _ = recall.load_recall_set()
    with pytest.raises(ValueError, match="unknown strategy"):
        recall.carried("rag", notes, "x", 5)
    with pytest.raises(ValueError, match="needs k"):
        recall.carried("select", notes, "x", None)


def _set(tmp_path, text):
    path = tmp_path / "tasks.yml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("body, message", [
    ("notes: data/a6/t14/notes.yml\ntasks:\n  - {id: a, text: x, needs: [no-such-note]}\n", "unknown note ids"),
    ("notes: data/a6/t14/notes.yml\ntasks:\n  - {id: a, text: x, needs: []}\n", "needs must list"),
    ("notes: data/a6/t14/notes.yml\ntasks:\n  - {id: a, text: x, needs: [rankine]}\n"
     "  - {id: a, text: y, needs: [rankine]}\n", "used twice"),
    ("notes: data/a6/t14/notes.yml\ntasks: []\n", "no tasks"),
    ("notes: data/a6/t14/missing.yml\ntasks: []\n", "cannot read"),
    ("tasks: [\n", "not valid YAML"),
    ("- a list\n", "mapping"),
])
def test_a_bad_recall_set_is_refused_with_its_path(tmp_path, body, message):
    path = _set(tmp_path, body)
    with pytest.raises(recall.RecallSetError, match=re.escape(message)):
        recall.load_recall_set(path)


def test_a_missing_recall_set_is_refused(tmp_path):
    with pytest.raises(recall.RecallSetError, match="cannot read"):
        recall.load_recall_set(tmp_path / "nope.yml")


# -- the Chinese set (issue 21) ---------------------------------------------------------------------

ZH_SET = RECALL_DIR / "tasks-zh.yml"


def test_the_chinese_set_mirrors_the_english_one_and_its_readme_counts_are_right():
    notes, tasks = recall.load_recall_set(ZH_SET)
    en_notes, en_tasks = recall.load_recall_set()
    assert set(notes) <= set(en_notes)
    en_needs = {t.id: t.needs for t in en_tasks}
    assert all(t.needs == en_needs[t.id] for t in tasks)  # the same labels as the English set
    assert next(t for t in tasks if t.id == "kelvin-zh").text == next(t for t in en_tasks if t.id == "kelvin-zh").text
    readme = (RECALL_DIR / "README.md").read_text(encoding="utf-8")
    labels = sum(len(t.needs) for t in tasks)
    assert f"{len(notes)} of the 45 notes" in readme and f"{len(tasks)} of the 20 requests" in readme
    assert f"({labels} labels" in readme


def test_every_chinese_request_finds_a_note_it_needs():
    # Before Chinese text was cut into words, 8 of these 15 requests found none of their notes at k=5.
    rows = recall.measure(ks=[5], path=ZH_SET)
    missed = [r.task for r in rows if r.strategy == "select" and not r.found]
    assert missed == []
