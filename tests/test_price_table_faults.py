"""Broken price tables: refused on load, naming the file, the model and the field (never a silent cost)."""
import math
import shutil
from pathlib import Path

import pytest
import yaml

from prefixlab.cache import models, pricing
from prefixlab.paths import PRICES
from prefixlab.presenting import report

ROOT = Path(__file__).resolve().parent.parent
REC = ROOT / "data" / "recordings" / "t13-switch-one-slot"


def clear_caches():
    for cached in (models.load_table, models._ids, models.anthropic_minimums, pricing.model_price):
        cached.cache_clear()


@pytest.fixture
def prices(tmp_path, monkeypatch):
    target = tmp_path / "prices"
    shutil.copytree(PRICES, target)
    monkeypatch.setattr(models, "PRICES", target)
    clear_caches()
    yield target
    clear_caches()


def edit(prices, provider, change):
    path = prices / f"{provider}.yml"
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(table)
    path.write_text(yaml.safe_dump(table, allow_unicode=True), encoding="utf-8")
    return path


def refused(model, *needles):
    with pytest.raises(ValueError) as raised:
        pricing.model_price(model)
    for needle in needles:
        assert needle in str(raised.value), str(raised.value)
    return str(raised.value)


BAD_PRICES = [("cheap", "should be a number"), (0, "positive, finite"), (-1.25, "positive, finite"),
              (math.nan, "positive, finite"), (math.inf, "positive, finite")]


@pytest.mark.parametrize("value, why", BAD_PRICES)
def test_a_bad_anthropic_price(prices, value, why):
    edit(prices, "anthropic", lambda t: t["models"]["claude-haiku-4-5"].__setitem__("base_input", value))
    refused("claude-haiku-4-5", "anthropic.yml", "model claude-haiku-4-5", "field base_input", why)


@pytest.mark.parametrize("value, why", BAD_PRICES)
def test_a_bad_openai_price(prices, value, why):
    edit(prices, "openai", lambda t: t["models"]["gpt-5-4"].__setitem__("cached_input", value))
    refused("gpt-5-4", "openai.yml", "model gpt-5-4", "field cached_input", why)


def test_a_bad_multiplier(prices):
    edit(prices, "anthropic", lambda t: t["models"]["claude-fable-5-1"]["multipliers"].__setitem__("read", 0))
    refused("claude-fable-5-1", "anthropic.yml", "model claude-fable-5-1", "field multipliers.read", "multiplier")


def test_a_bad_long_context_price(prices):
    edit(prices, "openai", lambda t: t["models"]["gpt-6-sol"]["long_context"].__setitem__("input", "4 dollars"))
    refused("gpt-6-sol", "openai.yml", "model gpt-6-sol", "field long_context.input")


def test_a_missing_price(prices):
    edit(prices, "openai", lambda t: t["models"]["gpt-5-4"].pop("input"))
    refused("gpt-5-4", "openai.yml", "model gpt-5-4", "field input is missing")
    clear_caches()
    edit(prices, "anthropic", lambda t: t["models"]["claude-haiku-4-5"].pop("base_input"))
    refused("claude-haiku-4-5", "anthropic.yml", "model claude-haiku-4-5", "field base_input is missing")


def test_a_misspelled_field(prices):
    edit(prices, "openai", lambda t: t["models"]["gpt-5-4"].__setitem__("cache_writes", 1.0))
    refused("gpt-5-4", "openai.yml", "model gpt-5-4", "unknown field 'cache_writes'")


def test_another_model_is_refused_too(prices):
    # a table is checked whole: one broken row stops every price from it, not just its own
    edit(prices, "anthropic", lambda t: t["models"]["claude-opus-5"].__setitem__("output", -25))
    refused("claude-haiku-4-5", "anthropic.yml", "model claude-opus-5", "field output")


def test_broken_yaml_names_the_line(prices):
    path = prices / "openai.yml"
    path.write_text(path.read_text(encoding="utf-8") + "  gpt-broken: {name: x, input: [1\n", encoding="utf-8")
    refused("gpt-5-4", "openai.yml:", "not valid YAML")


def test_a_table_that_is_not_utf8(prices):
    path = prices / "anthropic.yml"
    path.write_bytes(path.read_bytes().replace(b"Claude Opus 5,", b"Claude Opus 5\xff,", 1))
    refused("claude-haiku-4-5", "anthropic.yml", "not UTF-8")


def test_a_missing_table(prices):
    (prices / "openai.yml").unlink()
    refused("gpt-5-4", "openai.yml", "cannot read the price table")


def test_a_broken_minimums_table(prices):
    path = prices / "anthropic-minimums.yml"
    tables = yaml.safe_load(path.read_text(encoding="utf-8"))
    tables["tables"]["2026-12"]["models"]["claude-haiku-4-5"] = "many"
    path.write_text(yaml.safe_dump(tables), encoding="utf-8")
    with pytest.raises(ValueError, match=r"anthropic-minimums.yml: table 2026-12: model claude-haiku-4-5: "
                                         r"field minimum should be a positive whole number"):
        models.anthropic_minimums()


def test_report_says_which_table_model_and_field(prices, capsys):
    edit(prices, "anthropic", lambda t: t["models"]["claude-haiku-4-5"].__setitem__("base_input", math.nan))
    code = report.main([str(REC), "--model", "claude-haiku-4-5"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "anthropic.yml: model claude-haiku-4-5: field base_input should be a positive, finite price" in err


def test_every_shipped_table_passes_and_names_are_whole():
    clear_caches()
    for provider in pricing.PROVIDERS:
        for model in models.known_models(provider):
            assert pricing.model_price(model).base_input > 0
    # a comma in an unquoted flow-style value once cut this name in two
    assert pricing.model_price("claude-haiku-5-5").name == "Claude Haiku 5.5 (prompts up to 100,000 tokens)"


def test_the_schema_is_a_valid_json_schema():
    import json

    import jsonschema

    from prefixlab.paths import PRICES_SCHEMA
    jsonschema.Draft202012Validator.check_schema(json.loads(PRICES_SCHEMA.read_text(encoding="utf-8")))


def test_a_date_that_is_not_a_date(prices):
    edit(prices, "openai", lambda t: t["source"].__setitem__("taken", "last week"))
    refused("gpt-5-4", "openai.yml", "field source.taken should be a date (YYYY-MM-DD)", "'last week'")


def test_breakpoint_caching_needs_a_write_price(prices):
    edit(prices, "openai", lambda t: t["models"]["gpt-6-2-sol"].pop("cache_write"))
    refused("gpt-6-2-sol", "model gpt-6-2-sol", "field cache_write is missing", "bills its writes")


def test_a_misspelled_multiplier_and_a_file_that_is_no_table(prices):
    edit(prices, "anthropic", lambda t: t["models"]["claude-opus-5"].__setitem__("multipliers", {"reed": 0.1}))
    refused("claude-opus-5", "model claude-opus-5", "unknown field 'multipliers.reed'")
    clear_caches()
    (prices / "openai.yml").write_text("- just\n- a list\n", encoding="utf-8")
    refused("gpt-5-4", "openai.yml is not a price table (needs 'source' and 'models')")
