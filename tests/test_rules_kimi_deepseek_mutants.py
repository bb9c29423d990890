"""DeepSeek and Kimi rule edges that ``benchmarks/mutate_rules.py`` found no other test checking.

Expected values follow the rules as their module docstrings state them (prefixlab/cache/rules/deepseek.py:
api-docs.deepseek.com/guides/kv_cache; prefixlab/cache/rules/kimi.py: Moonshot's TTL announcement as quoted
and the third-party 256-token chunks), including the choices those docstrings call ours (the read capped
at ``len(prompt) - 1``; an entry or unit gone once it has been unused for its whole TTL). The arithmetic is
in the comments. Mutants left alive are equivalent: benchmarks/mutation_notes.yml says why.
"""
import pytest

from prefixlab.cache.rules import Request, deepseek, kimi

from rule_helpers import seq

A, B, C = seq(0, 1000), seq(5000, 300), seq(9000, 200)


# -- DeepSeek ---------------------------------------------------------------------------------------

def test_deepseek_small_settings_are_accepted():
    # a lifetime of one second and a unit every token are valid settings (> 0, >= 1)
    assert deepseek.DeepSeekConfig(ttl=1).ttl == 1
    assert deepseek.DeepSeekConfig(interval=1).interval == 1


def test_deepseek_names_the_request_that_stored_the_unit():
    # requests count from 0: the unit request 1 stored (the end of its input) is what request 2 reads
    p = deepseek.predict([Request(C), Request(A, t=1), Request(A + B, t=2)])
    assert p[2].matched_entry == "unit <- input end of request 1"


def test_deepseek_a_unit_unused_for_its_whole_ttl_is_gone():
    # stored at t=100; 49 s later it is alive, 50 s later (the whole ttl) it is gone
    alive = deepseek.predict([Request(A, t=100), Request(A + B, t=149)], ttl=50)[1]
    gone = deepseek.predict([Request(A, t=100), Request(A + B, t=150)], ttl=50)[1]
    assert (alive.read, gone.read) == (1000, 0)


def test_deepseek_a_unit_one_token_short_of_the_prompt_is_read_whole():
    # the cap is len(prompt) - 1: a stored unit of exactly that length still hits
    assert deepseek.predict([Request(A), Request(A + (7,), t=1)])[1].read == 1000


def test_deepseek_a_whole_unit_hit_has_no_note():
    # A+B is read whole and nothing longer matches: no "only a whole unit counts" note
    p = deepseek.predict([Request(A + B), Request(A + B + C, t=1)])[1]
    assert p.read == 1300 and p.notes == ()


# -- Kimi -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ttl, seconds", [("5m", 300), ("1h", 3600)])
def test_kimi_an_entry_is_gone_at_exactly_its_ttl(ttl, seconds):
    # written at t=0 and never hit: alive just before the TTL runs out, gone at exactly the TTL
    before = kimi.predict([Request(A), Request(A + B, t=seconds - 0.5)], ttl=ttl)[1]
    at = kimi.predict([Request(A), Request(A + B, t=seconds)], ttl=ttl)[1]
    assert (before.read, at.read) == (768, 0)


def test_kimi_names_the_request_that_stored_the_prompt():
    p = kimi.predict([Request(C), Request(A, t=1), Request(A + B, t=2)])
    assert p[2].matched_entry == "prefix cache <- request 1"


def test_kimi_without_alignment_a_first_request_reads_nothing_and_a_resend_keeps_one_token():
    # chunk=1: nothing is stored before the first request; an exact resend of 300 reads 299
    p = kimi.predict([Request(seq(0, 300)), Request(seq(0, 300), t=1)], chunk=1)
    assert (p[0].read, p[1].read) == (0, 299)


def test_kimi_minimum_length_is_inclusive():
    # min_tokens=768: a read of exactly 768 counts; a stored prompt of exactly 512 tokens is kept
    assert kimi.predict([Request(A), Request(A + B, t=1)], min_tokens=768)[1].read == 768
    short = seq(0, 512)
    assert kimi.predict([Request(short), Request(short + B, t=1)], min_tokens=512)[1].read == 512


def test_kimi_under_the_minimum_nothing_is_read_or_written():
    # min_tokens=1024: the aligned read 768 is under it (0), and the first 1,000-token prompt is not stored
    p = kimi.predict([Request(A), Request(A + B, t=1)], min_tokens=1024)
    assert (p[0].write, p[1].read) == (0, 0)
    assert kimi.predict([Request(A)], min_tokens=2000)[0].write == 0


def test_kimi_a_match_shorter_than_a_chunk_names_no_entry():
    # 100 shared tokens are under one 256-token chunk: read 0, so no entry was used
    p = kimi.predict([Request(seq(0, 100) + C), Request(seq(0, 100) + B, t=1)])[1]
    assert p.read == 0 and p.matched_entry is None


def test_kimi_a_resend_writes_nothing_new():
    # 1,000 tokens stored as 768; the resend reads aligned(999) = 768 and stores 768: write 0
    assert kimi.predict([Request(A), Request(A, t=1)])[1].write == 0
