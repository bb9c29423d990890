"""The two designs that send only matching notes (select, retrieve) and their BM25 retriever."""
import pytest

from miniagent.loop import run_task
from miniagent.modes import for_mode
from miniagent.memory import ENTRY_DELIMITER, MemoryStore, NoteRefused
from miniagent.prompt import MEMORY_HEADER
from miniagent.variants.retrieve_memory import RECALL_HEADER, Retrieve, split_recalled, with_recalled
from miniagent.retriever import Retriever
from miniagent.variants.select_memory import NO_MATCH, Select, pick_notes
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from helpers import ScriptedModel, answer, tool_call

NOTES = [
    "Checks: run `python tools/check.py` from the repo root; the exit code is the number of failures.",
    "Kelvin results are rounded to 2 decimals, like the other conversions.",
    "The user prefers answers in three bullet points at most.",
    "Releases are tagged vX.Y.Z on main after the changelog entry is written.",
]


def _store(tmp_path, notes=NOTES, limit=10_000):
    store = MemoryStore(tmp_path / "home" / "MEMORY.md", char_limit=limit)
    for note in notes:
        store.add(note)
    return store


# -- the retriever --------------------------------------------------------------------------------

def test_the_note_that_shares_the_words_comes_first():
    assert Retriever(NOTES).search("How are Kelvin values rounded?", k=2)[0] == 1


def test_words_are_stemmed_so_tests_finds_a_note_about_testing():
    notes = ["Testing needs the fixtures in data/.", "Deploys go through the staging host."]
    assert Retriever(notes).search("run the tests", k=5) == [0]


def test_a_query_that_shares_no_word_finds_nothing_not_k_arbitrary_notes():
    assert Retriever(NOTES).search("zebra giraffe", k=3) == []
    assert Retriever(NOTES).search("", k=3) == []
    assert Retriever(NOTES).search("the and of", k=3) == []  # stop words only


def test_an_empty_store_finds_nothing():
    assert Retriever([]).search("Kelvin", k=5) == []
    assert Retriever([]).scores("Kelvin") == []


def test_k_caps_the_hits_and_must_be_positive():
    assert len(Retriever(NOTES).search("checks kelvin answers releases", k=2)) == 2
    with pytest.raises(ValueError, match="k must be at least 1"):
        Retriever(NOTES).search("Kelvin", k=0)
    with pytest.raises(ValueError, match="k must be at least 1"):
        Select("base", "", MemoryStore("/nonexistent/MEMORY.md"), k=0)
    with pytest.raises(ValueError, match="k must be at least 1"):
        Retrieve("base", "", MemoryStore("/nonexistent/MEMORY.md"), k=0)


def test_a_note_over_the_store_limit_is_refused_and_the_store_still_serves(tmp_path):
    store = _store(tmp_path, NOTES[:2], limit=300)
    before = store.path.read_text()
    with pytest.raises(NoteRefused, match="Memory is full"):
        store.add("x" * 400)
    assert store.path.read_text() == before
    assert pick_notes(store.entries(), "Kelvin rounding", 1) == [NOTES[1]]


# -- the designs through the real loop --------------------------------------------------------------

TURN = [tool_call("c1", "read_file", path="app.py"), answer("done")]


def _session(tmp_path, mode, tasks, notes=NOTES):
    repo = tmp_path / "repo"
    repo.mkdir(parents=True, exist_ok=True)
    (repo / "app.py").write_text("print('hi')\n")
    memory = _store(tmp_path, notes)
    injection = for_mode(mode, "base", "Answer briefly.", memory)
    session = Session.open(tmp_path / "s.jsonl")
    model = ScriptedModel(TURN * len(tasks))
    for task in tasks:
        run_task(task, model=model, toolbox=Toolbox(Workspace(repo), memory), session=session, steps=[injection])
    return model.requests, session, injection


def test_for_mode_builds_the_two_designs(tmp_path):
    store = MemoryStore(tmp_path / "MEMORY.md")
    assert isinstance(for_mode("select", "b", "", store), Select)
    assert isinstance(for_mode("retrieve", "b", "", store), Retrieve)


def test_select_puts_the_notes_of_each_request_in_the_system_prompt(tmp_path):
    requests, session, _ = _session(tmp_path, "select", ["Add Kelvin support", "Run the checks"])
    systems = [r[0]["content"] for r in requests]
    assert systems[0] == systems[1] and systems[2] == systems[3]  # fixed within a turn
    assert MEMORY_HEADER in systems[0] and NOTES[1] in systems[0] and NOTES[0] not in systems[0]
    assert NOTES[0] in systems[2] and NOTES[1] not in systems[2]  # picked again for turn 2
    assert all(m["content"] in ("Add Kelvin support", "Run the checks") for r in requests
               for m in r if m["role"] == "user")  # the user's words are sent as typed
    types = [e["type"] for e in session.path_to()]
    assert types.count("system") == 1 and types.count("system_refresh") == 1  # one change: turn 2


def test_select_says_so_when_no_note_matches(tmp_path):
    requests, _, _ = _session(tmp_path, "select", ["zebra giraffe"])
    assert requests[0][0]["content"].endswith(f"{MEMORY_HEADER}\n\n{NO_MATCH}")


def test_retrieve_adds_the_notes_to_the_current_request_only(tmp_path):
    requests, session, _ = _session(tmp_path, "retrieve", ["Add Kelvin support", "Run the checks"])
    assert all(r[0]["content"] == requests[0][0]["content"] for r in requests)  # system never changes
    assert MEMORY_HEADER not in requests[0][0]["content"]
    first, second = requests[0][1]["content"], requests[2][1]["content"]
    assert first == with_recalled("Add Kelvin support", [NOTES[1]])
    assert requests[1][:2] == requests[0]  # within a turn the message stays as it was sent
    assert second == "Add Kelvin support"  # turn 2: the earlier message is plain again
    last_user = [m for m in requests[2] if m["role"] == "user"][-1]["content"]
    assert split_recalled(last_user) == ("Run the checks", NOTES[0])
    assert [e["type"] for e in session.path_to()].count("message_refresh") == 1


def test_retrieve_sends_the_request_alone_when_nothing_matches(tmp_path):
    requests, _, _ = _session(tmp_path, "retrieve", ["zebra giraffe"])
    assert requests[0][1]["content"] == "zebra giraffe"


def test_an_empty_store_gives_no_notes_in_either_design(tmp_path):
    requests, _, _ = _session(tmp_path / "select", "select", ["Add Kelvin support"], notes=[])
    assert requests[0][0]["content"].endswith(NO_MATCH)
    requests, _, _ = _session(tmp_path / "retrieve", "retrieve", ["Add Kelvin support"], notes=[])
    assert requests[0][1]["content"] == "Add Kelvin support"


def test_the_recalled_block_splits_back_exactly():
    text = with_recalled("Fix it.", NOTES[:2])
    assert text == f"Fix it.\n\n{RECALL_HEADER}\n\n{NOTES[0]}{ENTRY_DELIMITER}{NOTES[1]}"
    assert split_recalled(text) == ("Fix it.", ENTRY_DELIMITER.join(NOTES[:2]))
    assert with_recalled("Fix it.", []) == "Fix it." and split_recalled("Fix it.") is None


# -- Chinese (issue 21) ----------------------------------------------------------------------------

ZH_NOTES = [
    "运行检查:在仓库根目录执行 python tools/check.py,退出码就是失败的个数。",
    "开尔文的结果保留两位小数,和其他换算一样。",
    "用户希望回答最多三条要点。",
    "发布前先写更新日志,再在 main 上打 vX.Y.Z 标签。",
]


def test_a_chinese_query_finds_the_chinese_note_that_shares_its_words():
    assert Retriever(ZH_NOTES).search("开尔文的结果怎么取整?小数保留几位?", k=2)[0] == 1
    assert Retriever(ZH_NOTES).search("怎么运行检查", k=2) == [0]
    assert Retriever(ZH_NOTES).search("写更新日志", k=2) == [3]


def test_chinese_particles_alone_match_nothing():
    assert Retriever(ZH_NOTES).search("的 了 是", k=3) == []


def test_english_is_split_into_the_same_words_as_before():
    # The English recall results of A6·R depend on it: the default bm25s splitter, unchanged.
    import bm25s
    from chapters.a6.figures.recall import load_recall_set
    notes, tasks = load_recall_set()
    default = bm25s.tokenization.Tokenizer(stopwords="en")
    ours = Retriever(NOTES).tokenizer
    for text in [*NOTES, *notes.values(), *(t.text for t in tasks if t.id != "kelvin-zh")]:
        assert ours.splitter(text.lower()) == default.splitter(text.lower())
    # Latin words next to Chinese ones stay whole.
    assert ours.splitter("给 to_celsius 加上kelvin换算") == ["给", "to_celsius", "加上", "kelvin", "换算"]
