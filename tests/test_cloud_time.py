"""Cloud caches expire: time between recorded days, OpenAI retention, and GPT-5.6+ breakpoints."""
import pytest

from prefixlab.cache import calculator
from prefixlab.cache.rules import Block, Request, openai, openai_breakpoints
from prefixlab.paths import RECORDINGS

from rule_helpers import seq

T10 = RECORDINGS / "t10-smollm2-llamacpp"


# -- the time between recorded days ----------------------------------------------------------------

@pytest.fixture(scope="module")
def rec():
    return calculator.load_recording(T10)


def test_local_rules_keep_the_recorded_clock_cloud_rules_see_a_day(rec):
    assert calculator.between_days_for(rec, "llamacpp") is None
    assert calculator.between_days_for(rec, "anthropic") == calculator.NEXT_DAY_S
    assert calculator.between_days_for(rec, "openai", None) is None          # asked for: as recorded
    assert calculator.between_days_for(rec, "openai", 600.0) == 600.0
    with pytest.raises(ValueError, match=">= 0"):
        calculator.between_days_for(rec, "openai", -1.0)


def test_a_recording_may_say_how_far_apart_its_days_are(rec):
    rec.manifest["between_days_s"] = 120.0
    try:
        assert calculator.between_days_for(rec, "anthropic") == 120.0
    finally:
        del rec.manifest["between_days_s"]


def test_every_change_of_day_adds_the_gap(rec):
    indices = [i for i, c in enumerate(rec.calls) if c.epoch == 0]
    times = calculator.request_times(rec, indices, 1000.0)
    days = [rec.session_info(rec.calls[i].session)["day"] for i in indices]
    changes = sum(1 for a, b in zip(days, days[1:]) if a != b)
    assert times[indices[-1]] == pytest.approx(rec.calls[indices[-1]].t + 1000.0 * changes)
    assert list(times.values()) == sorted(times.values())
    assert calculator.request_times(rec, indices, None) == {}


def test_day_two_reads_day_one_under_claude_only_with_the_recorded_clock(rec):
    # Before the fix the calculator let day 2 read day 1's entries on Anthropic, seconds apart.
    kwargs = {"model": "claude-opus-5", "sessions": "frozen-day2"}
    recorded = calculator.analyze(rec, "anthropic", between_days=None, **kwargs)
    next_day = calculator.analyze(rec, "anthropic", **kwargs)                 # auto: a day later
    assert recorded[0].read > 0
    assert next_day[0].read == 0
    # llama-server keeps its cache: the recorded clock is the measurement, and auto keeps it
    local = calculator.analyze(rec, "llamacpp", sessions="frozen-day2")
    assert [r.read for r in local] == [r.measured for r in local]


# -- OpenAI classic: retention ------------------------------------------------------------------

P = seq(0, 2000)


def reads(requests, **config):
    return [p.read for p in openai.predict(requests, **config)]


def test_openai_entries_expire_after_idle_time_in_memory():
    # Before: idle_ttl=None meant an entry lived forever.
    assert reads([Request(P, t=0), Request(P, t=299)]) == [0, 1920]
    assert reads([Request(P, t=0), Request(P, t=300)]) == [0, 0]


def test_openai_extended_retention_and_its_maximum_age():
    assert reads([Request(P, t=0), Request(P, t=1799)], retention="24h") == [0, 1920]
    # reused every 250 s, an in-memory entry still ends an hour after it was written
    hits = reads([Request(P, t=250.0 * i) for i in range(16)])
    assert hits[1:14] == [1920] * 13 and hits[15] == 0
    assert openai.default_retention("gpt-5.5") == "24h" and openai.default_retention("gpt-6-luna") == "in_memory"


def test_an_exact_resend_holds_back_the_last_token():
    exact = seq(0, 1152)  # 1,024 + 128: before the fix the whole prompt was read
    assert reads([Request(exact, t=0), Request(exact, t=1)]) == [0, 1024]


# -- GPT-5.6 and later: breakpoints ----------------------------------------------------------------

def conversation(n_system: int, turns: list[int], t: float = 0.0) -> Request:
    """A system block, then user / assistant messages of the given sizes (user first)."""
    blocks, at = [Block("base", "system", 0, n_system)], n_system
    for i, size in enumerate(turns):
        role = "user" if i % 2 == 0 else "assistant"
        blocks.append(Block(f"{role}#{i + 1}", "message", at, at + size))
        at += size
    return Request(seq(0, at + 3), t=t, blocks=tuple(blocks))  # + the generation prompt's tokens


def test_the_implicit_breakpoint_sits_at_the_latest_user_message_and_writes_are_billed():
    first = conversation(900, [300])
    second = conversation(900, [300, 50, 40], t=10)
    p1, p2 = openai_breakpoints.predict([first, second])
    assert (p1.read, p1.write, p1.uncached) == (0, 1200, 3)
    assert (p2.read, p2.write) == (1200, 90)   # reads at the old breakpoint, writes up to the new one


def test_no_fall_back_to_the_longest_unmarked_prefix():
    # The same 1,500 shared tokens, but the first request wrote its entry after a longer user
    # message: the classic rule reads the shared prefix, the breakpoint rule finds no entry that ends
    # at one of its own boundaries (the developer block's end is a boundary, but nobody wrote there).
    first = conversation(1500, [400])
    other = Request(first.tokens[:1500] + seq(90_000, 203), t=5,
                    blocks=(Block("base", "system", 0, 1500), Block("user#1", "message", 1500, 1700)))
    assert openai_breakpoints.predict([first, other])[1].read == 0
    assert openai.predict([first, other])[1].read == 1408
    # an explicit breakpoint at the end of the system text makes the shared part reusable
    marked = openai_breakpoints.predict([first, other, other], breakpoints=("base",))
    assert [p.read for p in marked] == [0, 1500, 1700] and marked[1].write == 200


def test_breakpoint_entries_live_30_minutes_from_the_last_write_or_reuse():
    a, b = conversation(1200, [100]), conversation(1200, [100])
    late = Request(b.tokens, t=1800, blocks=b.blocks)
    assert openai_breakpoints.predict([a, late])[1].read == 0
    just = Request(b.tokens, t=1799, blocks=b.blocks)
    assert openai_breakpoints.predict([a, just])[1].read == 1300


def test_short_prefixes_are_not_cached():
    p = openai_breakpoints.predict([conversation(500, [100]), conversation(500, [100], t=1)])
    assert [(x.read, x.write) for x in p] == [(0, 0), (0, 0)]
