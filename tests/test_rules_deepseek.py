"""DeepSeek V4's whole-unit cache, from the provider's own examples (api-docs.deepseek.com/guides/kv_cache)."""
import pytest

from prefixlab.cache.rules import Request, deepseek

from rule_helpers import seq

A, B, C, D = seq(0, 3000), seq(10_000, 500), seq(20_000, 400), seq(30_000, 300)


def test_a_plus_b_then_a_plus_b_plus_c_hits_the_whole_unit():
    p = deepseek.predict([Request(A + B), Request(A + B + C, t=1)])
    assert (p[0].read, p[1].read) == (0, len(A + B))


def test_a_plus_c_misses_stores_a_and_a_plus_d_hits_a():
    p = deepseek.predict([Request(A + B), Request(A + C, t=1), Request(A + D, t=2)])
    assert p[1].read == 0 and "only a whole unit counts" in p[1].notes[0]
    assert p[2].read == len(A)


def test_longest_prefix_rule_would_read_a_on_the_miss():
    # the difference to every longest-prefix rule: A is common, but no unit ends there yet
    from prefixlab.cache.rules import openai
    assert openai.predict([Request(A + B), Request(A + C, t=1)])[1].read > 0
    assert deepseek.predict([Request(A + B), Request(A + C, t=1)])[1].read == 0


def test_the_output_end_is_a_unit():
    answer = seq(40_000, 50)
    p = deepseek.predict([Request(A, generated=answer), Request(A + answer + C, t=1)])
    assert p[1].read == len(A + answer)
    p = deepseek.predict([Request(A, generated=answer), Request(A + answer + C, t=1)], keep_output_unit=False)
    assert p[1].read == len(A)


def test_interval_units_are_off_by_default_and_a_parameter():
    reqs = [Request(A + B), Request(A + C, t=1)]
    assert deepseek.predict(reqs, interval=1000)[1].read == 3000
    assert deepseek.predict(reqs, detect_common_prefix=False)[1].read == 0
    p = deepseek.predict(reqs + [Request(A + D, t=2)], detect_common_prefix=False)
    assert p[2].read == 0


def test_an_exact_resend_keeps_its_last_token_and_writes_nothing():
    p = deepseek.predict([Request(A), Request(A, t=1)])
    assert p[1].read < len(A) and all(x.write == 0 for x in p)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="interval"):
        deepseek.DeepSeekConfig(interval=0)


def test_mutation_off_by_one_unit_never_hits():
    # a unit one token longer than the prompt's common part must not count
    p = deepseek.predict([Request(A + B), Request(A + B[:-1] + C, t=1)])
    assert p[1].read == 0


def test_an_unpublished_lifetime_is_a_parameter():
    reqs = [Request(A + B), Request(A + B + C, t=100)]
    assert deepseek.predict(reqs)[1].read == len(A + B)
    assert deepseek.predict(reqs, ttl=50)[1].read == 0
    with pytest.raises(ValueError, match="ttl"):
        deepseek.DeepSeekConfig(ttl=0)
