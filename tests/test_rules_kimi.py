"""Kimi's automatic prefix cache: TTLs from Moonshot's announcement; 256-token chunks are third-party."""
import pytest

from prefixlab.cache.rules import Request, kimi

from rule_helpers import seq

A, B = seq(0, 1000), seq(5000, 300)


def test_reads_are_aligned_to_chunks_and_writes_are_the_new_chunks():
    p = kimi.predict([Request(A), Request(A + B, t=1)])
    assert (p[0].read, p[0].write, p[0].write_5m) == (0, 768, 768)
    assert p[1].read == 768 and p[1].write == 1280 - 768
    assert kimi.predict([Request(A), Request(A + B, t=1)], chunk=1)[1].read == 1000


def test_five_minutes_by_default_one_hour_on_request():
    reqs = [Request(A), Request(A + B, t=301)]
    assert kimi.predict(reqs)[1].read == 0
    p = kimi.predict(reqs, ttl="1h")
    assert p[1].read == 768 and p[1].write_1h == p[1].write and p[1].write_5m == 0


def test_a_hit_refreshes_the_entry():
    reqs = [Request(A), Request(A + B, t=200), Request(A, t=450)]
    assert kimi.predict(reqs)[2].read == 768


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="ttl"):
        kimi.KimiConfig(ttl="24h")
    with pytest.raises(ValueError, match="chunk"):
        kimi.KimiConfig(chunk=0)


def test_mutation_an_exact_resend_keeps_its_last_token():
    p = kimi.predict([Request(seq(0, 512)), Request(seq(0, 512), t=1)])
    assert p[1].read == 256
