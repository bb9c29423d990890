"""Every cache rule describes itself (name, label, settings) and reads keyword overrides the same way."""
import ast
import dataclasses
from pathlib import Path

import pytest

from prefixlab.cache import rules
from prefixlab.cache.rules import Block, Request
from prefixlab.cache.rules.anthropic import AnthropicConfig, model_settings
from prefixlab.cache.rules.base import Settings, configure

from rule_helpers import seq

CONFIGS = {"llamacpp": rules.llamacpp.LlamaCppConfig, "mlx": rules.mlx.MlxConfig, "vllm": rules.vllm.VllmConfig,
           "anthropic": AnthropicConfig, "openai": rules.openai.OpenAIConfig,
           "openai-breakpoints": rules.openai_breakpoints.BreakpointConfig,
           "deepseek": rules.deepseek.DeepSeekConfig, "kimi": rules.kimi.KimiConfig, "qwen": rules.qwen.QwenConfig}
# per rule, one override that changes the predictions for REQUESTS
CHANGES = {"llamacpp": {"cache_prompt": False}, "mlx": {"max_size": 1}, "vllm": {"block_size": 4},
           "anthropic": {"min_tokens": 0}, "openai": {"min_tokens": 8, "step": 8},
           "openai-breakpoints": {"min_tokens": 8}, "deepseek": {"ttl": 1.0}, "kimi": {"chunk": 1},
           "qwen": {"implicit_min_tokens": 1}}
P, Q = seq(0, 40), seq(500, 30)
REQUESTS = [Request(P), Request(P + seq(40, 10), t=1), Request(Q, t=2), Request(P + seq(60, 5), t=3)]


def test_every_rule_describes_itself():
    assert list(rules.RULES) == list(CONFIGS)
    for name, module in rules.RULES.items():
        assert module.NAME == name and rules.get(name) is module
        assert isinstance(module.LABEL, str) and module.LABEL
        assert isinstance(module.RULE, str) and module.RULE
        assert set(module.TAKES) <= set(rules.CHOICES)
        assert isinstance(module.API, bool) and isinstance(module.TTL_WRITES, bool)
        assert module.SERVER is None or isinstance(module.SERVER, str)
        assert module.PROVIDER in (None, "anthropic", "openai", "deepseek", "kimi", "qwen")
        assert (module.PROVIDER is None) == (module.SERVER is not None or not module.API), name
        assert issubclass(CONFIGS[name], Settings)
        if "model" in module.TAKES:
            assert callable(module.model_settings)


def test_settings_keep_only_the_choices_a_rule_takes():
    for name, module in rules.RULES.items():
        got = rules.settings(name, "claude-opus-5", ["memory_header"])
        expected = set()
        if "model" in module.TAKES:
            expected |= set(module.model_settings("claude-opus-5"))
        if "breakpoints" in module.TAKES:
            expected |= {"breakpoints"}
        assert set(got) == expected, name
        blocks = (Block("memory_header", "system", 0, 10), Block("rest", "message", 10, len(P)))
        rules.predict(name, [Request(P, blocks=blocks)], **got)  # the rule accepts them
    assert rules.settings("anthropic") == {}
    assert model_settings("claude-opus-5") == {"model": "claude-opus-5"}
    # only the Feb-2026 table lists Haiku 3, so the settings name that table
    assert model_settings("claude-haiku-3") == {"model": "claude-haiku-3", "min_table": "2026-02"}


def test_the_recorded_servers_rule():
    assert rules.for_server("llama-server") == "llamacpp"
    assert rules.for_server("external") is None and rules.for_server(None) is None


def test_an_unknown_rule_names_the_known_ones():
    with pytest.raises(ValueError, match="known rules: llamacpp, mlx, vllm, anthropic, openai, openai-breakpoints"):
        rules.get("nope")


@pytest.mark.parametrize("name", list(CONFIGS))
def test_keyword_overrides_mean_the_same_for_every_rule(name):
    Config, change = CONFIGS[name], CHANGES[name]
    module = rules.get(name)
    changed = module.predict(REQUESTS, Config(**change))
    assert changed != module.predict(REQUESTS, Config())      # the override matters here ...
    assert module.predict(REQUESTS, **change) == changed       # ... alone,
    assert module.predict(REQUESTS, Config(), **change) == changed  # ... and on top of a config
    assert rules.predict(name, REQUESTS, **change) == changed


@pytest.mark.parametrize("name", list(CONFIGS))
def test_overrides_replace_single_fields_of_the_given_config(name):
    Config, change = CONFIGS[name], CHANGES[name]
    base = Config()
    assert configure(Config, base, {}) is base
    assert configure(Config, None, change) == Config(**change)
    assert configure(Config, base, change) == dataclasses.replace(base, **change)
    other = next(c for c in CONFIGS.values() if c is not Config)
    with pytest.raises(TypeError, match=Config.__name__):
        configure(Config, other(), change)


def test_an_anthropic_minimum_from_the_table_follows_the_model():
    opus = AnthropicConfig(model="claude-opus-5")
    assert opus.min_tokens == 512
    assert opus.replace(model="claude-haiku-4-5").min_tokens == 4096
    assert opus.replace(model="claude-sonnet-4-6", min_table="2026-02").min_tokens == 2048
    assert opus.replace(automatic=None) == AnthropicConfig(model="claude-opus-5", automatic=None)
    fixed = AnthropicConfig(model="claude-opus-5", min_tokens=7)
    assert fixed.replace(model="claude-haiku-4-5").min_tokens == 7  # given, not from the table
    preds = rules.anthropic.predict(REQUESTS, opus, model="claude-haiku-4-5", min_tokens=None)
    assert preds == rules.anthropic.predict(REQUESTS, model="claude-haiku-4-5")


ROOT = Path(__file__).resolve().parents[1]
PRESENTING = ROOT / "prefixlab" / "presenting"
# What shows numbers: the instruments' presenting layer and every chapter's own figures, exercises and labs.
SHOWING = sorted(PRESENTING.rglob("*.py")) + sorted(p for p in (ROOT / "chapters").rglob("*.py") if "tests" not in p.parts)


@pytest.mark.parametrize("path", SHOWING, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_presenting_never_compares_with_a_rule_name(path):
    """What a rule takes or shows comes from its module, not from ``rule == "anthropic"``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
            for side in [node.left, *node.comparators]:
                if isinstance(side, ast.Constant) and side.value in rules.RULES:
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
    assert not found, found
