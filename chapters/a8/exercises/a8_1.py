"""Checker functions for lesson A8·1's exercises. Each returns a short Chinese verdict.

    check_summary_input(guess)     # exercise 1: A5·4's summary calls booked Anthropic style
    check_responses_usage(guess)   # exercise 2: an OpenAI Responses API usage, normalized
"""
from __future__ import annotations

from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill
from prefixlab.presenting.answers import ask, is_int, more_or_less

SUMMARY_RECORDING = "a5-4-summary-call-smollm2-llamacpp"
# A usage object as OpenAI's Responses API writes it (field names from its reference; the numbers are ours).
RESPONSES_USAGE = {"input_tokens": 5120, "input_tokens_details": {"cached_tokens": 4864},
                   "output_tokens": 80, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 5200}


def summary_input() -> int:
    """Anthropic-style input_tokens of the summary calls (kind compaction) of the A5·4 recording."""
    lines = bill.bill(RECORDINGS / SUMMARY_RECORDING).lines()
    return sum(l.usage.input for l in lines if l.kind == "compaction" and l.usage is not None)


def check_summary_input(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = summary_input()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。Anthropic 的 input_tokens 只算重算的那部分:"
                "每个摘要请求的 prompt_tokens 减去它的 cached_tokens,再相加。")
    return (f"对:{answer:,}。摘要请求沿用了 agent 的前缀,几乎整段从缓存读取;"
            "按 Anthropic 口径记账,它们的 input_tokens 很小,读取的部分记在 cache_read_input_tokens 里。")


def check_responses_usage(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = bill.normalize(RESPONSES_USAGE).input
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。Responses API 也叫 input_tokens,但它和 Chat Completions 的 "
                "prompt_tokens 一样包含读取的 token(input_tokens_details.cached_tokens)。")
    return (f"对:{answer:,}。同一个字段名 input_tokens,在 Anthropic 那里不含缓存读取,在 OpenAI 的 Responses API "
            "里含:归一时看的是它旁边有没有 input_tokens_details。")
