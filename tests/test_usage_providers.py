"""A8·1's usage normalisation reads DeepSeek's, Kimi's and Qwen's documented usage objects."""
import pytest

from prefixlab.presenting.bill import BillError, normalize


def test_deepseek_hit_and_miss_fields():
    # api-docs.deepseek.com: prompt_cache_hit_tokens + prompt_cache_miss_tokens = prompt_tokens
    u = normalize({"prompt_tokens": 1200, "completion_tokens": 30, "total_tokens": 1230,
                   "prompt_cache_hit_tokens": 1024, "prompt_cache_miss_tokens": 176})
    assert (u.input, u.cache_read, u.cache_write, u.output, u.unreported) == (176, 1024, 0, 30, 0)
    with pytest.raises(BillError, match="prompt_cache_miss_tokens"):
        normalize({"prompt_tokens": 1200, "prompt_cache_hit_tokens": 1024, "prompt_cache_miss_tokens": 100})


def test_qwen_implicit_example():
    # the 百炼 page's OpenAI-compatible example response
    u = normalize({"prompt_tokens": 3019, "completion_tokens": 104, "total_tokens": 3123,
                   "prompt_tokens_details": {"cached_tokens": 2048}})
    assert (u.input, u.cache_read, u.output) == (971, 2048, 104)


def test_qwen_explicit_creation_and_hit():
    made = normalize({"prompt_tokens": 18628, "completion_tokens": 344, "prompt_tokens_details": {
        "cache_creation_input_tokens": 18613, "cache_type": "ephemeral", "cached_tokens": 0}})
    assert (made.input, made.cache_read, made.cache_write) == (15, 0, 18613)
    hit = normalize({"prompt_tokens": 18628, "completion_tokens": 445, "prompt_tokens_details": {
        "cache_creation_input_tokens": 0, "cache_type": "ephemeral", "cached_tokens": 18613}})
    assert (hit.input, hit.cache_read, hit.cache_write) == (15, 18613, 0)
    with pytest.raises(BillError, match="does not fit"):
        normalize({"prompt_tokens": 10, "prompt_tokens_details": {"cache_creation_input_tokens": 9, "cached_tokens": 5}})


def test_kimi_top_level_cached_tokens():
    u = normalize({"prompt_tokens": 2000, "completion_tokens": 10, "cached_tokens": 1536})
    assert (u.input, u.cache_read, u.unreported) == (464, 1536, 0)
