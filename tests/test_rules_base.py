"""Input checks shared by every rule, and the rule dispatcher."""
import pytest

from prefixlab.cache import rules
from prefixlab.cache.rules import Block, Prediction, Request, common_prefix


def test_request_normalises_lists_to_tuples_and_finds_blocks():
    r = Request([1, 2, 3, 4], [9], t=0, blocks=[Block("sys", "system", 0, 2), Block("u", "message", 2, 4)])
    assert r.tokens == (1, 2, 3, 4) and r.generated == (9,)
    assert r.block_at(0).name == "sys" and r.block_at(3).name == "u" and r.block_at(4) is None


@pytest.mark.parametrize("kwargs, message", [
    (dict(tokens=()), "no prompt tokens"),
    (dict(tokens=(1, 2), t=-1.0), ">= 0"),
    (dict(tokens=(1, 2), t=float("nan")), "finite"),
    (dict(tokens=(1, "a")), "token ids"),
    (dict(tokens="hello"), "string"),
    (dict(tokens=(1, 2), blocks=(Block("a", "system", 0, 5),)), "past the prompt"),
    (dict(tokens=(1, 2, 3), blocks=(Block("a", "system", 0, 2), Block("b", "message", 1, 3))), "before the previous"),
    (dict(tokens=(1, 2, 3), blocks=(Block("a", "system", 0, 1), Block("a", "message", 1, 3))), "unique"),
])
def test_bad_requests_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Request(**kwargs)


def test_bad_blocks_are_rejected():
    with pytest.raises(ValueError, match="kind"):
        Block("x", "assistant", 0, 1)
    with pytest.raises(ValueError, match="start <= end"):
        Block("x", "message", 3, 1)


@pytest.mark.parametrize("name", list(rules.RULES))
def test_every_rule_rejects_out_of_order_times(name):
    reqs = [Request(tuple(range(2000)), t=10), Request(tuple(range(2000)), t=5)]
    with pytest.raises(ValueError, match="non-decreasing"):
        rules.predict(name, reqs)


@pytest.mark.parametrize("name", list(rules.RULES))
def test_every_prediction_adds_up(name):
    reqs = [Request(tuple(range(n)), t=float(i)) for i, n in enumerate((5000, 5100, 300, 5200))]
    for p in rules.predict(name, reqs):
        assert p.read + p.fresh == p.total and 0 <= p.write <= p.fresh


def test_unknown_rule_lists_the_known_ones():
    with pytest.raises(ValueError, match="llamacpp, mlx, vllm, anthropic, openai"):
        rules.predict("sglang", [])


def test_prediction_invariants():
    with pytest.raises(ValueError, match="read \\+ fresh"):
        Prediction(read=1, write=0, fresh=1, total=5)
    with pytest.raises(ValueError, match="cannot exceed"):
        Prediction(read=0, write=6, fresh=5, total=5)
    assert Prediction(read=2, write=1, fresh=3, total=5).uncached == 2


def test_common_prefix():
    assert common_prefix((1, 2, 3), (1, 2, 4)) == 2
    assert common_prefix((), (1,)) == 0
    assert common_prefix((1, 2), (1, 2)) == 2


@pytest.mark.parametrize("name", list(rules.RULES))
def test_a_rejected_request_leaves_the_state_untouched(name):
    make = {"llamacpp": lambda: rules.llamacpp.LlamaCppServer(rules.llamacpp.LlamaCppConfig()),
            "mlx": lambda: rules.mlx.MlxServer(), "vllm": lambda: rules.vllm.VllmServer(),
            "anthropic": lambda: rules.anthropic.AnthropicCache(rules.anthropic.AnthropicConfig(min_tokens=0)),
            "openai": lambda: rules.openai.OpenAICache(),
            "openai-breakpoints": lambda: rules.openai_breakpoints.BreakpointCache(),
            "deepseek": lambda: rules.deepseek.DeepSeekCache(), "kimi": lambda: rules.kimi.KimiCache(),
            "qwen": lambda: rules.qwen.QwenCache()}[name]
    reqs = [Request(tuple(range(3000)), t=10), Request(tuple(range(3000)) + (1,), t=11)]
    clean = make()
    expected = [clean.step(r) for r in reqs]
    dirty = make()
    dirty.step(reqs[0])
    with pytest.raises(ValueError, match="before the previous request"):
        dirty.step(Request(tuple(range(5000, 6000)), t=3))
    assert dirty.step(reqs[1]) == expected[1]
