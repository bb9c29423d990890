"""OpenAI classic prompt caching (1,024 minimum, 128-token steps; the formula is our inference)."""
import pytest

from prefixlab.cache.rules import Request
from prefixlab.cache.rules.openai import OpenAIConfig, cached_tokens, predict

from rule_helpers import seq


@pytest.mark.parametrize("matched, cached", [(0, 0), (1023, 0), (1024, 1024), (1151, 1024),
                                              (1152, 1152), (1920, 1920), (1999, 1920)])
def test_granularity(matched, cached):
    assert cached_tokens(matched) == cached     # 1,920 = 1,024 + 7 x 128 is the guide's example


def test_shared_prefix_is_rounded_down_to_128_steps():
    a = seq(0, 1500) + seq(90000, 500)
    b = seq(0, 1500) + seq(95000, 300)
    preds = predict([Request(a), Request(b, t=1)])
    assert (preds[1].read, preds[1].write, preds[1].fresh) == (1408, 0, 392)
    assert preds[1].break_at == 1500


def test_short_prompts_are_never_cached():
    p = seq(0, 1000)
    preds = predict([Request(p), Request(p + (5,), t=1)])
    assert [x.read for x in preds] == [0, 0]


def test_idle_ttl_expiry_and_refresh():
    p = seq(0, 2000)
    cfg = OpenAIConfig(idle_ttl=300)
    preds = predict([Request(p), Request(p, t=200), Request(p, t=450)], cfg)
    assert [x.read for x in preds] == [0, 1920, 1920]   # used at 200, so alive at 450
    preds = predict([Request(p), Request(p, t=301)], cfg)
    assert preds[1].read == 0


def test_bad_config():
    with pytest.raises(ValueError):
        OpenAIConfig(idle_ttl=0)
    with pytest.raises(ValueError):
        OpenAIConfig(step=0)
