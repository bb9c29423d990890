"""OpenAI rule edges that ``benchmarks/mutate_rules.py`` found no other test checking.

Expected values follow prefixlab/cache/rules/openai.py's docstring: 1,024 minimum and 128-token steps from
OpenAI's prompt-caching guide, and the choices it calls ours (an entry gone once ``t - first write >=
max_age``; a stored strict prefix of a new prompt dropped, nothing else; the older of two equally long
matches is the hit). Arithmetic in the comments.
"""
from prefixlab.cache.rules import Request, kimi, openai, qwen

from rule_helpers import seq

A, B, C, D = seq(0, 1500), seq(10_000, 300), seq(20_000, 1200), seq(30_000, 200)


def test_requests_are_named_from_zero_and_a_resend_keeps_its_origin():
    p = openai.predict([Request(C), Request(A, t=1), Request(A, t=2), Request(A + B, t=3)])
    assert p[3].matched_entry == "prompt cache <- request 1"


def test_max_age_counts_from_the_first_write():
    # written at t=100, max_age 50 (idle 1,000): alive at 149, gone at 150 (100 + 50)
    cfg = dict(idle_ttl=1000, max_age=50)
    alive = openai.predict([Request(A, t=100), Request(A + B, t=149)], **cfg)[1]
    gone = openai.predict([Request(A, t=100), Request(A + B, t=150)], **cfg)[1]
    assert (alive.read, gone.read) == (1408, 0)          # 1,500 matched: 1,024 + 3 x 128


def test_a_first_request_reads_nothing_even_with_a_minimum_of_one():
    assert openai.predict([Request(A)], min_tokens=1, step=1)[0].read == 0


def test_a_match_under_the_minimum_names_no_entry():
    p = openai.predict([Request(A), Request(A[:600] + B, t=1)])[1]
    assert p.read == 0 and p.matched_entry is None


def test_only_a_strict_prefix_of_the_new_prompt_is_dropped():
    # a longer, unrelated prompt (2,000 tokens) leaves A+B (1,800) stored: A+D still reads A (1,408)
    p = openai.predict([Request(A + B), Request(seq(40_000, 2000), t=1), Request(A + D, t=2)])
    assert p[2].read == 1408


def test_a_tie_goes_to_the_older_stored_prompt():
    # A+B and A+D both match A+C for 1,500 tokens; the older (request 0) is the hit, in each rule
    # that states this choice
    reqs = [Request(A + B), Request(A + D, t=1), Request(A + C, t=2)]
    assert openai.predict(reqs)[2].matched_entry == "prompt cache <- request 0"
    assert kimi.predict(reqs)[2].matched_entry == "prefix cache <- request 0"
    assert qwen.predict(reqs)[2].matched_entry == "implicit cache <- request 0"
