"""mlx_lm.server prompt-cache rules on hand-built token sequences."""
import pytest

from prefixlab.cache.rules import Request
from prefixlab.cache.rules.mlx import MlxConfig, MlxServer, predict

from rule_helpers import seq


def test_identical_resend_trims_the_stored_key_to_n_minus_1():
    p, gen = seq(0, 50), (900, 901)
    preds = predict([Request(p, gen), Request(p, t=1)])
    assert preds[1].read == 49           # stored key p+gen is longer: copy and trim to len-1


def test_exact_key_match_reports_the_whole_prompt():
    p = seq(0, 50)                       # no generated tokens: the key is the prompt itself
    preds = predict([Request(p), Request(p, t=1)])
    assert preds[1].read == 50


def test_key_includes_every_generated_token():
    p, gen = seq(0, 40), (900, 901, 902)
    nxt = p + gen + seq(1000, 5)
    preds = predict([Request(p, gen), Request(nxt, t=1)])
    assert preds[1].read == 43           # the stored key is a prefix of the new prompt


def test_longest_prefix_over_all_entries_not_only_the_last():
    a, u = seq(0, 100), seq(5000, 100)
    preds = predict([Request(a), Request(u, t=1), Request(a + seq(200, 5), t=2)])
    assert preds[2].read == 100 and preds[2].matched_entry == "prompt cache <- request 0"


def test_divergent_entry_gives_the_common_prefix():
    a = seq(0, 60) + seq(100, 40)
    b = seq(0, 60) + seq(300, 40)
    preds = predict([Request(a), Request(b, t=1)])
    assert preds[1].read == 60 and preds[1].break_at == 60


def test_inserting_a_key_deletes_its_stored_strict_prefixes():
    server = MlxServer()
    a = seq(0, 30)
    server.step(Request(a))
    server.step(Request(a + seq(100, 10), t=1))
    assert list(server.entries) == [a + seq(100, 10)]


def test_lru_of_ten_evicts_the_oldest_prompt():
    prompts = [seq(k * 1000, 20) for k in range(11)]
    server = MlxServer()
    preds = [server.step(Request(p, t=float(i))) for i, p in enumerate(prompts)]
    assert len(server) == 10 and prompts[0] not in server.entries
    assert any("evicted request 0" in n for n in preds[10].notes)
    assert server.step(Request(prompts[0] + (1,), t=20)).read == 0


def test_a_lookup_does_not_refresh_recency():
    prompts = [seq(k * 1000, 100) for k in range(10)]
    server = MlxServer()
    for i, p in enumerate(prompts):
        server.step(Request(p, t=float(i)))
    # hit request 0 by a diverging prompt: its key is not touched, so it is still the oldest
    hit = server.step(Request(prompts[0][:50] + seq(99000, 10), t=20))
    assert hit.read == 50
    assert prompts[0] not in server.entries


def test_cache_size_is_a_parameter():
    prompts = [seq(k * 1000, 20) for k in range(3)]
    server = MlxServer(MlxConfig(max_size=2))
    for i, p in enumerate(prompts):
        server.step(Request(p, t=float(i)))
    assert len(server) == 2


def test_non_trimmable_cache_uses_only_exact_or_shorter_entries():
    a = seq(0, 60) + seq(100, 40)
    b = seq(0, 60) + seq(300, 40)
    preds = predict([Request(a), Request(b, t=1)], trimmable=False)
    assert preds[1].read == 0


def test_bad_config_and_order():
    with pytest.raises(ValueError):
        MlxConfig(max_size=0)
    with pytest.raises(ValueError, match="non-decreasing"):
        predict([Request((1, 2), t=3), Request((1, 2), t=2)])
