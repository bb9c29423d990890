"""The shipped T14 recording (side lesson A6·R), offline: what the lesson says it shows.

Every request predicted exactly is in test_shipped_recordings.py (all recordings); here: where
each strategy puts the notes (block attribution calls them ``memory`` wherever they are), where
each new request breaks the prefix, that the notes sent are the ones the recall module computes,
and that the Anthropic and OpenAI views replay it.
"""
import pytest

from miniagent.variants.retrieve_memory import split_recalled

from prefixlab.cache import calculator, composition
from prefixlab.paths import RECORDINGS
from chapters.a6.figures import recall

T14 = RECORDINGS / "t14-smollm2-llamacpp"


@pytest.fixture(scope="module")
def replay():
    return calculator.prepare(T14)


@pytest.fixture(scope="module")
def rows(replay):
    return {r.seq: r for r in calculator.analyze(replay)}


def memory_tokens(replay, call):
    return composition.tokens_by_part(replay.attributions[call.seq], call.request["messages"])["memory"]


def turn_starts(rec, session):
    return [c for c in rec.session_calls(session) if c.round == 1]


def test_the_recording_is_t14_and_predicted_exactly(replay, rows):
    rec = replay.recording
    assert rec.manifest["experiment"] == "T14" and rec.complete
    assert [s["id"] for s in rec.manifest["sessions"]] == ["frozen", "select", "retrieve"]
    assert all(r.read == r.measured for r in rows.values())
    assert {c.session: c.epoch for c in rec.calls} == {"frozen": 0, "select": 1, "retrieve": 2}


def test_frozen_sends_the_whole_file_and_every_request_reads_the_one_before(replay, rows):
    calls = replay.recording.session_calls("frozen")
    assert len({memory_tokens(replay, c) for c in calls}) == 1
    assert all(rows[b.seq].read == a.prompt_tokens for a, b in zip(calls, calls[1:]))


def test_select_breaks_in_the_memory_body_at_every_new_request(replay, rows):
    rec = replay.recording
    for call in turn_starts(rec, "select")[1:]:
        row, att = rows[call.seq], replay.attributions[call.seq]
        assert row.break_block == "memory_body" and row.next_blocks[0] == "tools"
        assert row.read == att.block("memory_body").start  # the first picked note differs
    calls = rec.session_calls("select")
    assert all(rows[b.seq].read == a.prompt_tokens for a, b in zip(calls, calls[1:]) if b.round > 1)


def test_retrieve_breaks_right_after_the_previous_requests_own_words(replay, rows):
    rec = replay.recording
    starts = turn_starts(rec, "retrieve")
    for before, call in zip(starts, starts[1:]):
        row, att = rows[call.seq], replay.attributions[call.seq]
        previous = max(i for i, m in enumerate(before.request["messages"]) if m["role"] == "user")
        assert call.request["messages"][previous]["content"] == split_recalled(
            before.request["messages"][previous]["content"])[0]  # the notes are gone, the words stay
        assert row.read == att.block(f"user#{previous}").end
        assert row.break_block.startswith("template#")  # the end-of-turn marker where the notes were
    assert all(memory_tokens(replay, c) > 0 for c in rec.session_calls("retrieve"))


def test_the_notes_sent_are_the_ones_the_recall_module_computes(replay):
    notes, tasks = recall.load_recall_set()
    rec = replay.recording
    k = rec.session_info("select")["top_k"]
    by_text = {text: note_id for note_id, text in notes.items()}
    for task, sel, ret in zip(tasks, turn_starts(rec, "select"), turn_starts(rec, "retrieve")):
        wanted = recall.carried("select", notes, task.text, k)[0]
        system = sel.request["messages"][0]["content"]
        assert [by_text[n] for n in system.split("# Memory from previous sessions\n\n")[1].split("\n§\n")] == wanted
        last_user = [m for m in ret.request["messages"] if m["role"] == "user"][-1]["content"]
        assert [by_text[n] for n in split_recalled(last_user)[1].split("\n§\n")] == wanted


@pytest.mark.parametrize("rule, options", [("anthropic", {"model": "claude-opus-5"}),
                                           ("anthropic", {"model": "claude-opus-5", "breakpoints": ["agents_md"]}),
                                           ("openai", {})])
def test_the_cloud_views_replay_every_request(replay, rule, options):
    rows = calculator.analyze(replay, rule, **options)
    assert len(rows) == len(replay.recording.calls)
    assert all(r.read + r.fresh == r.prompt_tokens and r.read <= r.prompt_tokens for r in rows)
    frozen = [r for r in rows if r.session == "frozen"]
    assert all(r.read > 0 for r in frozen[1:])  # an unchanged prefix is read back under every rule
