"""Checker functions for lesson A7·4's parallel half. Each returns a short Chinese verdict.

    check_slot_share(guess)                          # exercise 1: one slot's context with -c 8192 -np 3
    check_second_child_first(two_slots, guess)       # exercise 2: the second parallel child's first cached_tokens (32-token replies)
"""
from __future__ import annotations

from prefixlab.cache.rules.llamacpp import LlamaCppConfig
from prefixlab.presenting.answers import ask, is_int, more_or_less

from chapters.a7.figures.parallel import parallel_effect

TOKENS = 5  # a few tokens of template glue either way
SHARE_SETTINGS = {"n_ctx": 8192, "n_slots": 3}


def slot_share(n_ctx: int = SHARE_SETTINGS["n_ctx"], n_slots: int = SHARE_SETTINGS["n_slots"]) -> int:
    """What one slot holds with ``-c n_ctx -np n_slots`` (no unified KV), as the llama.cpp rule computes it."""
    return LlamaCppConfig(n_ctx=n_ctx, n_slots=n_slots, kv_unified=False).context_per_slot


def check_slot_share(guess) -> str:
    """Exercise 1: ``-c 8192 -np 3``: how many tokens may one slot hold?"""
    if not is_int(guess):
        return ask(guess)
    answer = slot_share()
    if guess == answer:
        return (f"对:{answer:,}。8192 / 3 不是整数,服务器先把每个槽位的份额向上补到 256 的倍数,"
                "所以三个槽位加起来比 -c 给的还多一点。")
    if guess == SHARE_SETTINGS["n_ctx"] // SHARE_SETTINGS["n_slots"]:
        return "差一点:这是 8192 / 3 向下取整。服务器还会把每个槽位的份额向上补齐到某个整数的倍数。"
    return f"不对,{more_or_less(guess, answer)}。每个槽位分到 -c 除以 -np,再补齐到 256 的倍数。"


def check_second_child_first(recording, guess) -> str:
    """Exercise 2: two children at once on -np 2, each request writing up to 32 tokens (variant
    ``parallel-replies``): how many tokens the second child's first request reads from the cache."""
    if not is_int(guess):
        return ask(guess)
    effect = parallel_effect(recording, "parallel-replies")
    prompt, answer = effect.child_first["child2"]
    if abs(guess - answer) > TOKENS:
        return (f"不对,{more_or_less(guess, answer)}。它到达时,第一个子 agent 的请求还在一步一步地生成:那个槽位忙着,"
                "不参与挑选。剩下的那个槽位里有什么?主机缓存里又有什么?")
    return (f"对:{answer:,}(和服务器报告的数相差不超过 {TOKENS} 个 token 都算对),它的 prompt 有 {prompt:,} 个 token。"
            "忙着的槽位不参与挑选;另一个槽位从没用过,主机缓存里也没有它能用的前缀,只好从头算。")
