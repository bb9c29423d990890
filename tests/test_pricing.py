"""Price tables and the per-term cost formula."""
import math

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
        assert src["url"].startswith("https://") and src["stored_copy"] and src["taken"] == "2026-12-02"


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


def test_local_rule_prices_kept_tokens_as_writes_and_says_it_is_a_conversion():
    pred = Prediction(read=900, write=100, fresh=100, total=1000, rule="llama.cpp")
    cost = request_cost(pred, "claude-sonnet-4-6")
    assert cost.term("write_5m").tokens == 100 and cost.term("uncached").tokens == 0
    assert any("llama.cpp cache rule" in n for n in cost.notes)
    assert request_cost(pred, "claude-sonnet-4-6", local_write_ttl="1h").term("write_1h").tokens == 100


def test_openai_cached_discount_and_no_write_fee():
    assert model_price("gpt-4o").multipliers["read"] == 0.5
    assert model_price("gpt-4.1").multipliers["read"] == 0.25
    p = model_price("GPT-5.4")
    assert p.multipliers["read"] == approx(0.1) and p.multipliers["write_5m"] == 1.0
    assert model_price("gpt-5.6 sol").multipliers["write_5m"] == 1.25
    pred = Prediction(read=1408, write=0, fresh=392, total=1800, rule="OpenAI")
    cost = request_cost(pred, "gpt-5-4")
    assert cost.total == approx((392 * 2.5 + 1408 * 0.25) / 1e6)
    assert len(cost.notes) == 1   # only the tokenizer conversion note: same provider's rule


def test_output_tokens_term():
    pred = Prediction(read=0, write=0, fresh=10, total=10)
    cost = request_cost(pred, "claude-haiku-4-5", output_tokens=1000)
    assert cost.term("output").usd == approx(1000 * 5 / 1e6)
    with pytest.raises(ValueError, match="no output price"):
        request_cost(pred, "gpt-4o", output_tokens=5)
    with pytest.raises(ValueError, match=">= 0"):
        request_cost(pred, "claude-haiku-4-5", output_tokens=-1)


def test_unknown_model_lists_known_models():
    with pytest.raises(ValueError, match="unknown anthropic model 'claude-haiku-9'.*claude-haiku-4-5"):
        model_price("claude-haiku-9")
    with pytest.raises(ValueError, match="unknown model 'smollm2-135m'.*gpt-5-4"):
        model_price("smollm2-135m")
    with pytest.raises(ValueError, match="unknown provider"):
        load_table("deepseek")
    assert "claude-haiku-4-5" in known_models("anthropic") and "gpt-4o" in known_models()


def test_refresh_vs_no_refresh_ratio():
    refresh = [Prediction(read=0, write=5000, fresh=5000, total=5000, rule="llama.cpp"),
               Prediction(read=0, write=5100, fresh=5100, total=5100, rule="llama.cpp")]
    frozen = [Prediction(read=0, write=5000, fresh=5000, total=5000, rule="llama.cpp"),
              Prediction(read=4999, write=101, fresh=101, total=5100, rule="llama.cpp")]
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
