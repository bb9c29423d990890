"""vLLM automatic prefix caching on hand-built token sequences."""
import pytest

from prefixlab.cache.rules import Request
from prefixlab.cache.rules.vllm import VllmConfig, VllmServer, predict

from rule_helpers import seq


@pytest.mark.parametrize("n, cached", [(100, 96), (33, 32), (32, 16), (17, 16), (16, 0), (1, 0)])
def test_identical_resend_caches_floor_n_minus_1_over_16_blocks(n, cached):
    p = seq(0, n)
    preds = predict([Request(p), Request(p, t=1)])
    assert preds[1].read == cached


def test_only_full_blocks_of_the_shared_prefix_count():
    a = seq(0, 35) + seq(500, 5)
    b = seq(0, 35) + seq(900, 30)
    preds = predict([Request(a), Request(b, t=1)])
    assert preds[1].read == 32 and preds[1].break_at == 32


def test_generated_tokens_fill_blocks_except_the_last_sampled_one():
    p, gen = seq(0, 20), seq(900, 13)     # computed: 20 + 12 = 32 tokens = 2 full blocks
    nxt = p + gen + seq(2000, 17)
    preds = predict([Request(p, gen), Request(nxt, t=1)])
    assert preds[1].read == 32


def test_write_counts_new_full_prompt_blocks():
    preds = predict([Request(seq(0, 40))])
    assert preds[0].write == 32 and preds[0].fresh == 40


def test_block_size_is_a_parameter():
    p = seq(0, 100)
    assert predict([Request(p), Request(p, t=1)], block_size=32)[1].read == 96
    assert predict([Request(p), Request(p, t=1)], block_size=64)[1].read == 64


def test_lru_capacity_evicts_old_blocks():
    a, b = seq(0, 64), seq(5000, 64)
    preds = predict([Request(a), Request(b, t=1), Request(a + (1,), t=2)], num_blocks=4)
    assert preds[2].read == 0


def test_tail_blocks_are_evicted_before_prefix_blocks():
    a, b = seq(0, 64), seq(5000, 32)       # 4 + 2 blocks, capacity 5: one block of a goes
    server = VllmServer(VllmConfig(num_blocks=5))
    server.step(Request(a))
    server.step(Request(b, t=1))
    assert server.step(Request(a + (1,), t=2)).read == 48   # a's last block went, its prefix stayed


def test_bad_config():
    with pytest.raises(ValueError):
        VllmConfig(block_size=0)
    with pytest.raises(ValueError):
        VllmConfig(num_blocks=0)
