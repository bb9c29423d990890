"""The calculator's API over the shipped recording (offline): rows, config from flags, API rules."""
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from prefixlab.cache import calculator, counterfactual
from prefixlab.cache.rules import Block, Request
from prefixlab.cache.rules import anthropic as anthropic_rule
from prefixlab.cache.rules.llamacpp import LlamaCppConfig

REC = Path(__file__).resolve().parent.parent / "data" / "recordings" / "t10-smollm2-llamacpp"


@pytest.fixture(scope="module")
def replay():
    return calculator.prepare(REC)


def fake_recording(flags, props=None):
    server = {"kind": "llama-server", "flags": flags}
    if props is not None:
        server["props"] = props
    return SimpleNamespace(path=Path("/x"), provenance={"server": server})


def test_rule_names():
    assert calculator.rule_names() == ["llamacpp", "mlx", "vllm", "anthropic", "openai", "openai-breakpoints",
                                      "deepseek", "kimi", "qwen"]


def test_config_from_the_recorded_flags(replay):
    cfg = calculator.llamacpp_config(replay.recording)
    flags = replay.recording.provenance["server"]["flags"]
    assert cfg == LlamaCppConfig.single_slot(cache_ram_mib=int(flags[flags.index("--cache-ram") + 1]),
                                             n_ctx=int(flags[flags.index("-c") + 1]),
                                             slot_prompt_similarity=0.1)


def test_config_flag_spellings():
    assert calculator.llamacpp_config(fake_recording([], {"n_ctx": 4096})) == LlamaCppConfig(n_ctx=4096)
    cfg = calculator.llamacpp_config(fake_recording(["--parallel=2", "-kvu", "-cram", "0", "--no-cache-idle-slots",
                                                     "-sps", "0", "--ctx-size", "16384"]))
    assert (cfg.n_slots, cfg.kv_unified, cfg.cache_ram_mib, cfg.cache_idle_slots, cfg.slot_prompt_similarity,
            cfg.n_ctx) == (2, True, 0, False, 0.0, 16384)
    assert calculator.llamacpp_config(fake_recording(["-np", "1"]), cache_ram_mib=0).cache_ram_mib == 0


def test_cache_reuse_reaches_the_rule():
    assert calculator.llamacpp_config(fake_recording(["--cache-reuse", "256"])).cache_reuse == 256
    assert calculator.llamacpp_config(fake_recording(["--kv-unified-per-slot", "3000"])).kv_unified_per_slot == 3000


@pytest.mark.parametrize("flags, what", [(["--context-shift"], "--context-shift"),
                                         (["--sleep-idle-seconds", "30"], "--sleep-idle-seconds 30")])
def test_flags_the_rule_cannot_model_are_refused(flags, what):
    with pytest.raises(calculator.UnsupportedServerError, match=what):
        calculator.llamacpp_config(fake_recording(flags))


def test_padded_per_slot_context_from_the_flags():
    config = calculator.llamacpp_config(fake_recording(["-c", "8192", "-np", "3"]))
    assert (config.context_per_slot, config.context_total) == (2816, 8448)


def test_rows_in_global_order(replay):
    rows = calculator.analyze(replay)
    assert [r.seq for r in rows] == list(range(len(replay.recording.calls)))
    r = rows[0]
    assert (r.read + r.fresh, r.prompt_tokens) == (r.prompt_tokens, replay.recording.calls[0].prompt_tokens)
    assert r.measured == replay.recording.calls[0].cached_tokens


def test_sessions_filter_keeps_the_shared_cache(replay):
    everything = {r.seq: r for r in calculator.analyze(replay)}
    only = calculator.analyze(replay, sessions="frozen-day1")
    assert {r.session for r in only} == {"frozen-day1"}
    # frozen-day1 follows the refresh group on the same server: its first request reads what they left
    assert only[0].read > 0
    assert all(r == everything[r.seq] for r in only)


def test_unknown_rule_and_session(replay):
    with pytest.raises(ValueError, match="unknown rule 'nope'"):
        calculator.analyze(replay, "nope")
    with pytest.raises(ValueError, match="unknown session 'nope'"):
        calculator.analyze(replay, sessions=["nope"])


def test_as_dicts_are_plain(replay):
    dicts = calculator.as_dicts(calculator.analyze(replay, sessions="refresh-day1"))
    json.dumps(dicts)  # no objects left
    assert {"seq", "measured", "read", "write", "fresh", "break_block", "before_break", "after_break",
            "ok", "difference", "uncached"} <= set(dicts[0])


@pytest.mark.parametrize("rule", ["llamacpp", "mlx", "vllm", "anthropic", "openai"])
def test_every_rule_runs(replay, rule):
    rows = calculator.analyze(replay, rule, sessions="refresh-day1")
    assert all(r.read + r.fresh == r.prompt_tokens and r.rule == rule for r in rows)


def refresh_round(rows):
    return next(r for r in rows if r.break_block == "memory_body")


def test_anthropic_puts_tools_first(replay):
    """Automatic caching only: the refresh round reads nothing; a breakpoint at the end of the stable
    part keeps tools + base + AGENTS.md + header, because the API puts the tools first."""
    auto = calculator.analyze(replay, "anthropic", sessions="refresh-day1", model="claude-opus-5")
    refresh_seq = refresh_round(calculator.analyze(replay, sessions="refresh-day1")).seq
    assert next(r for r in auto if r.seq == refresh_seq).read == 0
    stable = calculator.analyze(replay, "anthropic", sessions="refresh-day1", model="claude-opus-5",
                                breakpoints=["memory_header"])
    row = next(r for r in stable if r.seq == refresh_seq)
    att = replay.attributions[refresh_seq]
    assert row.read == att.block("memory_header").end + len(att.block("tools"))
    assert row.break_block == "memory_body"
    # the llama.cpp order (tools after the system text) keeps only what comes before the memory body
    assert refresh_round(calculator.analyze(replay, sessions="refresh-day1")).read == att.block("memory_body").start


def test_anthropic_tokens_after_the_last_block_are_not_hashed():
    """prefixlab/cache/rules/anthropic.py change: the generation prompt after the last block is no part of
    it, so the next turn (where those tokens open the assistant message) still hits the entry."""
    first = Request(tuple(range(1, 11)) + (90, 91), blocks=(Block("s", "system", 0, 6), Block("u1", "message", 6, 10)))
    second = Request(tuple(range(1, 11)) + (90, 91, 50, 51, 52) + (90, 91),
                     blocks=(Block("s", "system", 0, 6), Block("u1", "message", 6, 10), Block("a2", "message", 10, 15)))
    p = anthropic_rule.predict([first, second], min_tokens=0)
    assert (p[0].write, p[0].uncached) == (10, 2)
    assert p[1].read == 10


def test_openai_counts_in_steps(replay):
    rows = calculator.analyze(replay, "openai", sessions="refresh-day1")
    assert all(r.read == 0 or (r.read >= 1024 and (r.read - 1024) % 128 == 0) for r in rows)


def test_counterfactual_note_comes_from_the_recording(replay):
    rec = replay.recording
    assert counterfactual.note_system(rec) == counterfactual.next_day_system(rec)
    assert counterfactual.remembered_notes(rec, "frozen-day1")[0] in counterfactual.note_system(rec)


def test_counterfactual_build(replay):
    rec = replay.recording
    built = counterfactual.build(rec, 3)
    history = counterfactual.history_calls(rec, "frozen-day1")
    assert [b.round for b in built] == [e["round"] for e in history]
    assert [b.refreshed for b in built] == [e["round"] > 3 for e in history]
    assert all(b.messages == e["request"]["messages"] for b, e in zip(built, history) if not b.refreshed)


def test_counterfactual_bad_input(replay):
    rec = replay.recording
    ks = counterfactual.k_values(rec)
    for k in (0, ks.stop, -1, "3", 2.5):
        with pytest.raises(counterfactual.CounterfactualError, match="out of range"):
            counterfactual.build(rec, k)
    with pytest.raises(counterfactual.CounterfactualError, match="fork session"):
        counterfactual.build(rec, 1, history="frozen-day1-fork")
    with pytest.raises(counterfactual.CounterfactualError, match="no session"):
        counterfactual.build(rec, 1, history="nope")
    with pytest.raises(counterfactual.CounterfactualError, match="carries no memory"):
        counterfactual.build(rec, 1, history="after-tools-day1")


def test_counterfactual_from_another_history_has_no_measurement(replay):
    rows = counterfactual.predict(replay, 2, history="refresh-day1")
    assert all(r.measured is None and r.ok is None for r in rows)
    assert rows[0].read == 0  # alone on an empty cache
    assert rows[2].break_block == "memory_body"


def test_cached_tokenizations_are_keyed_by_the_tokenizer_not_its_id(monkeypatch):
    from tokenizers import Tokenizer

    from prefixlab.cache.attribution import attribute
    from prefixlab.cache.tokenizer import load_template, load_tokenizer

    template = load_template()
    messages = [{"role": "system", "content": "You are a coding agent."},
                {"role": "user", "content": "Fix the bug in main.py."}]
    first, second = load_tokenizer(), load_tokenizer()  # two objects, one tokenizer
    assert first is not second
    cached = calculator.attribute_request(template, first, messages, None)
    assert calculator.attribute_request(template, second, messages, None) is cached
    other = Tokenizer.from_str(first.to_str())
    other.add_tokens(["main.py"])  # splits this request differently
    # ids of freed objects are reused: even a tokenizer with a cached one's id gets its own tokens
    monkeypatch.setattr(calculator, "id", lambda obj: 1, raising=False)
    calculator.attribute_request(template, first, messages, None)
    got = calculator.attribute_request(template, other, messages, None)
    assert got.ids == attribute(template, other, messages, None).ids != cached.ids
    assert calculator.tokenizer_key(other) != calculator.tokenizer_key(first) == calculator.tokenizer_key(second)
