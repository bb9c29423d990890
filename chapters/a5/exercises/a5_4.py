"""Checker functions for lesson A5·4's exercises. Each returns a short Chinese verdict.

    check_after_compaction(recs, guess)      # exercise 1: the first request after a same-prefix compaction
    check_anthropic_summary(recs, guess)     # exercise 2: the separate summary call under Anthropic's rule
"""
from __future__ import annotations

from prefixlab.cache import calculator
from prefixlab.presenting.answers import ask, is_int, more_or_less

from chapters.a5.figures.summary_call import VARIANTS, first_after

ANTHROPIC_MODEL = "claude-opus-5"


def check_after_compaction(recs: dict, guess) -> str:
    """Same-prefix variant: cached_tokens of the first model call after the first compaction."""
    if not is_int(guess):
        return ask(guess)
    call = first_after(recs["same-prefix"], VARIANTS["same-prefix"][2])
    if call.cached_tokens != guess:
        return (f"不对,{more_or_less(guess, call.cached_tokens)}。压缩之后的请求是 system prompt、工具定义、摘要、保留的几轮;"
                "槽位里刚算过的是摘要请求。两者从哪里开始不同?")
    return (f"对:{call.cached_tokens:,}。只有摘要之前的部分(system prompt 和工具定义)读得回来;"
            f"摘要和保留的几轮是新的排列,{call.prompt_tokens - call.cached_tokens:,} 个 token 重算。"
            "摘要请求沿用前缀,省的是摘要请求自己,省不了压缩之后的这一轮。")


def check_anthropic_summary(recs: dict, guess) -> str:
    """Separate variant: what Anthropic's rule (automatic caching) would read for its first summary call."""
    rec, session = recs["separate"], VARIANTS["separate"][2]
    if not is_int(guess):
        return ask(guess)
    row = next(r for r in calculator.analyze(rec, "anthropic", sessions=session, model=ANTHROPIC_MODEL)
               if rec.calls[r.seq].kind == "compaction")
    if row.read != guess:
        return (f"不对,{more_or_less(guess, row.read)}。Anthropic 按块比较,拼接顺序是工具、system、消息;"
                "不带工具的请求,第一块就和之前的请求不同。")
    return (f"对:{row.read:,}。Anthropic 的前缀从工具定义开始,摘要请求不带工具,第一块就对不上,"
            "整个请求要重新写入缓存。")
