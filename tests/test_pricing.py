"""Price tables and the per-term cost formula."""
import math
import re

import pytest

from prefixlab.cache import pricing
from prefixlab.cache.models import normalize_model
from prefixlab.cache.pricing import known_models, load_table, model_price, refresh_vs_no_refresh, request_cost, total_cost
from prefixlab.cache.rules import Prediction
from prefixlab.cache.rules.anthropic import min_cacheable_tokens


def approx(x):
    return pytest.approx(x, rel=1e-12, abs=1e-15)


def test_tables_carry_their_source_and_date():
    for provider in pricing.PROVIDERS:
        src = load_table(provider)["source"]
        taken = "2026-12-07" if provider in ("deepseek", "kimi", "qwen") else "2026-12-03"
        assert src["url"].startswith("https://") and src["stored_copy"] and src["taken"] == taken


def test_base_times_multiplier_reproduces_the_listed_anthropic_prices():
    for key, row in load_table("anthropic")["models"].items():
        if row.get("listed_rounded"):
            continue
        p = model_price(key)
        for term, listed in row["listed"].items():
            assert math.isclose(p.price(term), listed, rel_tol=1e-12), (key, term)


def test_documented_multipliers():
    p = model_price("claude-haiku-4-5")
    assert p.multipliers == {"uncached": 1.0, "write_5m": 1.25, "write_1h": 2.0, "read": 0.1}
    assert model_price("Claude Fable 5.1").multipliers["read"] == 0.025


def test_anthropic_usage_example_term_by_term():
    # the usage shape of the docs' 1-hour example: 2,048 input, 1,800 read, 148 + 100 written
    pred = Prediction(read=1800, write=248, fresh=2296, total=4096, write_5m=148, write_1h=100, rule="Anthropic")
    cost = request_cost(pred, "claude-haiku-4-5")
    assert [(t.name, t.tokens, t.multiplier) for t in cost.terms] == [
        ("uncached", 2048, 1.0), ("write_5m", 148, 1.25), ("write_1h", 100, 2.0), ("read", 1800, 0.1)]
    assert cost.total == approx((2048 + 148 * 1.25 + 100 * 2 + 1800 * 0.1) / 1e6)
    assert "x $1/MTok x 1.25" in cost.term("write_5m").explain()
    assert any("Conversion" in n for n in cost.notes)


def test_local_rule_rows_are_not_priced_with_cloud_prices():
    # Before: every uncached token of a llama.cpp row became a 1.25x write, and Claude's minimum
    # was ignored. Now the rows must come from the provider's own rule.
    pred = Prediction(read=900, write=100, fresh=100, total=1000, rule="llama.cpp")
    with pytest.raises(pricing.PricingError, match="local server.*'anthropic' rule"):
        request_cost(pred, "claude-sonnet-4-6")
    with pytest.raises(pricing.PricingError, match="'openai' rule"):
        request_cost(Prediction(read=0, write=10, fresh=10, total=10, rule="mlx_lm"), "gpt-5-4")


def test_cloud_rows_are_priced_only_with_their_own_provider():
    with pytest.raises(pricing.PricingError, match="'anthropic' rule"):
        request_cost(Prediction(read=0, write=0, fresh=10, total=10, rule="OpenAI"), "claude-opus-5")


def test_openai_cached_discount_and_no_write_fee():
    assert model_price("gpt-4o").multipliers["read"] == 0.5
    assert model_price("gpt-4.1").multipliers["read"] == 0.25
    p = model_price("GPT-5.4")
    assert p.multipliers["read"] == approx(0.1) and "write_30m" not in p.multipliers
    assert p.rule == "openai"
    pred = Prediction(read=1408, write=0, fresh=392, total=1800, rule="OpenAI")
    cost = request_cost(pred, "gpt-5-4")
    assert [t.name for t in cost.terms] == ["uncached", "read"]
    assert cost.total == approx((392 * 2.5 + 1408 * 0.25) / 1e6)


def test_gpt_5_6_and_later_bill_writes_under_the_breakpoint_rule_only():
    p = model_price("gpt-5.6 luna")
    assert p.rule == "openai-breakpoints" and p.multipliers["write_30m"] == approx(1.25)
    classic = Prediction(read=1024, write=0, fresh=476, total=1500, rule="OpenAI")
    with pytest.raises(pricing.PricingError, match="'openai-breakpoints' rule"):
        request_cost(classic, "gpt-5.6-luna")  # never the classic rule, silently
    pred = Prediction(read=1000, write=400, fresh=500, total=1500, rule="OpenAI breakpoints")
    cost = request_cost(pred, "gpt-5.6-luna")
    assert [(t.name, t.tokens) for t in cost.terms] == [("uncached", 100), ("write_30m", 400), ("read", 1000)]
    assert cost.total == approx((100 * 0.20 + 400 * 0.25 + 1000 * 0.02) / 1e6)


def test_output_tokens_term():
    pred = Prediction(read=0, write=0, fresh=10, total=10, rule="Anthropic")
    cost = request_cost(pred, "claude-haiku-4-5", output_tokens=1000)
    assert cost.term("output").usd == approx(1000 * 5 / 1e6)
    with pytest.raises(ValueError, match="no output price"):
        request_cost(Prediction(read=0, write=0, fresh=10, total=10, rule="OpenAI"), "gpt-4o", output_tokens=5)
    with pytest.raises(ValueError, match=">= 0"):
        request_cost(pred, "claude-haiku-4-5", output_tokens=-1)


def test_unknown_model_lists_known_models():
    with pytest.raises(ValueError, match="unknown anthropic model 'claude-haiku-9'.*claude-haiku-4-5"):
        model_price("claude-haiku-9")
    with pytest.raises(ValueError, match="unknown model 'smollm2-135m'.*gpt-5-4"):
        model_price("smollm2-135m")
    with pytest.raises(ValueError, match="unknown provider"):
        load_table("mistral")
    assert "claude-haiku-4-5" in known_models("anthropic") and "gpt-4o" in known_models()


def test_refresh_vs_no_refresh_ratio():
    refresh = [Prediction(read=0, write=5000, fresh=5000, total=5000, write_5m=5000, rule="Anthropic"),
               Prediction(read=0, write=5100, fresh=5100, total=5100, write_5m=5100, rule="Anthropic")]
    frozen = [Prediction(read=0, write=5000, fresh=5000, total=5000, write_5m=5000, rule="Anthropic"),
              Prediction(read=4999, write=101, fresh=101, total=5100, write_5m=101, rule="Anthropic")]
    cmp = refresh_vs_no_refresh(refresh, frozen, "claude-haiku-4-5")
    expected_refresh = 10100 * 1.25 / 1e6
    expected_frozen = (5101 * 1.25 + 4999 * 0.1) / 1e6
    assert cmp.refresh.total == approx(expected_refresh) and cmp.no_refresh.total == approx(expected_frozen)
    assert cmp.ratio == approx(expected_refresh / expected_frozen)
    assert cmp.by_term()["read"] == (0.0, approx(4999 * 0.1 / 1e6))
    with pytest.raises(ValueError, match="output_tokens values"):
        total_cost(refresh, "claude-haiku-4-5", output_tokens=[1])
    with pytest.raises(ValueError, match="no predictions"):
        total_cost([], "claude-haiku-4-5")


def test_prices_and_rules_read_model_names_the_same_way():
    assert normalize_model("Claude Haiku 4.5") == "claude-haiku-4-5"
    assert normalize_model("GPT-5.4") == "gpt-5-4"
    assert normalize_model("haiku-4.5") == "haiku-4-5"
    assert normalize_model(" Haiku 4.5 ", "anthropic") == normalize_model("claude-haiku-4.5", "anthropic") == "claude-haiku-4-5"
    assert model_price("Haiku 4.5", "anthropic").model == "claude-haiku-4-5"
    assert min_cacheable_tokens("Haiku 4.5") == min_cacheable_tokens("claude-haiku-4-5")


# -- the tables as the vendors list them today ----------------------------------------------------

def test_the_newest_models_are_priced():
    assert model_price("claude-opus-5-5").price("read") == approx(0.20)     # 0.05x on Opus 5.5
    assert model_price("Claude Sonnet 5.5").multipliers["read"] == approx(0.05)
    assert model_price("gpt-6-2-sol").rule == "openai-breakpoints"
    assert model_price("gpt-6-1-terra").multipliers["read"] == approx(0.05)
    assert min_cacheable_tokens("claude-haiku-5-5") == 512


def test_dated_model_ids_resolve_to_their_row():
    assert model_price("claude-haiku-4-5-20251001").model == "claude-haiku-4-5"
    assert model_price("claude-3-5-haiku-20241022").model == "claude-haiku-3-5"
    assert model_price("gpt-5.5-2026-04-23").model == "gpt-5-5"
    assert min_cacheable_tokens("claude-haiku-4-5-20251001") == 4096


def test_legacy_and_retired_models_are_marked():
    anthropic = load_table("anthropic")["models"]
    assert anthropic["claude-haiku-4-5"]["status"] == "legacy"
    assert anthropic["claude-sonnet-4-5"]["status"] == "retired"
    pred = Prediction(read=0, write=0, fresh=10, total=10, rule="Anthropic")
    assert any("retired" in n for n in request_cost(pred, "claude-sonnet-4-5").notes)
    assert not any("retired" in n for n in request_cost(pred, "claude-opus-5-5").notes)
    for provider in pricing.PROVIDERS:
        for key, row in load_table(provider)["models"].items():
            assert row.get("status", "current") in ("current", "legacy", "deprecated", "retired"), key
            assert row.get("source") or load_table(provider)["source"]["url"], key


def test_models_only_third_parties_document_are_not_priced():
    with pytest.raises(ValueError, match="unverified_models"):
        model_price("claude-fable-5-2")
    with pytest.raises(ValueError, match="incomplete_models"):
        model_price("gpt-6-2-astra")


def test_long_context_prices_apply_above_the_limit():
    p = model_price("gpt-6-sol")
    short = Prediction(read=0, write=0, fresh=272_000, total=272_000, rule="OpenAI breakpoints")
    long = Prediction(read=0, write=0, fresh=272_001, total=272_001, rule="OpenAI breakpoints")
    assert request_cost(short, "gpt-6-sol").term("uncached").base_price == p.base_input == 2.0
    cost = request_cost(long, "gpt-6-sol")
    assert cost.term("uncached").base_price == 4.0 and any("Long-context" in n for n in cost.notes)
    assert request_cost(Prediction(read=0, write=0, fresh=100_001, total=100_001, rule="Anthropic"),
                        "claude-haiku-5-5").term("uncached").base_price == 0.5


def test_the_build_warns_when_a_table_is_older_than_90_days():
    from datetime import date, timedelta

    taken = date.fromisoformat(load_table("openai")["source"]["taken"])
    assert pricing.stale_tables(taken + timedelta(days=90)) == []
    warnings = pricing.stale_tables(taken + timedelta(days=91))
    assert len(warnings) == 2 and "91 days" in warnings[0]


def test_the_stale_table_check_runs_in_the_book_build():
    from pathlib import Path

    build = (Path(__file__).parent.parent / "scripts" / "build_book.sh").read_text()
    assert "-m prefixlab.cache.models" in build


def test_printed_sources_are_public_urls_with_their_date():
    """What pages print as a price's source: a URL a reader can open, the date and the price file, no corpus id."""
    for provider in ("anthropic", "openai", "deepseek", "kimi", "qwen"):
        table = load_table(provider)
        for key in table["models"]:
            source = model_price(key, provider).source
            assert "idx:" not in source, (provider, key, source)
            assert re.match(r"https://|[\w.-]+/[\w.-]+@[0-9a-f]{7,40}:", source), (provider, key, source)
            assert f"taken {table['source']['taken']}, data/prices/{provider}.yml" in source, source


def test_cache_rule_sources_name_no_corpus_id():
    from prefixlab.cache import rules
    for name in rules.RULES:
        assert "idx:" not in rules.get(name).SOURCE, name
