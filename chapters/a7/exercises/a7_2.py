"""Checker functions for lesson A7·2's exercises. Each returns a short Chinese verdict.

    check_fork_child_hit(one_slot_recording, guess)   # exercise 1: the forked child's first cached_tokens
    check_parent_back(effects, guess)                 # exercise 2: setups where the parent gets its history back
"""
from __future__ import annotations

from prefixlab.presenting.answers import ASK, ask, is_int, more_or_less

from chapters.a7.figures.delegation import SETUP_LABELS, ChildEffect, child_effect

TOKENS = 5  # a few tokens of template glue either way
WORDS = f"和服务器报告的数相差不超过 {TOKENS} 个 token 都算对"


def check_fork_child_hit(recording, guess) -> str:
    """A7-2, one slot without host cache: what the forked child's first request reads from the cache."""
    if not is_int(guess):
        return ask(guess)
    effect = child_effect(recording, "fork")
    answer = effect.child_first.measured
    if abs(guess - answer) > TOKENS:
        return (f"不对,{more_or_less(guess, answer)}。槽位里是父 agent 的上一个请求;分叉的子 agent 的请求从第一个 token 起"
                "和它相同,到哪里为止?父 agent 的请求在那里接着写助手的回答,子 agent 接着写一条新的 user 消息。")
    return (f"对:{answer:,}({WORDS})。父 agent 上一个请求有 {effect.parent_before.prompt_tokens:,} 个 token,"
            "只差结尾那一点模板:分叉就是父 agent 的对话再加一条任务书。")


def fully_back(effect: ChildEffect) -> bool:
    """The parent's first request after the child reads back everything its previous request sent
    (all but the template's last few tokens, which differ because the next message differs)."""
    return effect.parent_back.measured >= effect.parent_before.prompt_tokens - TOKENS


def check_parent_back(effects: list[ChildEffect], guess) -> str:
    """A7-2: the setups (SETUP_LABELS values) where, after a *fresh* child, the parent reads its whole history back."""
    labels = [SETUP_LABELS[e.setup] for e in effects if e.mode == "fresh"]
    if guess is None:
        return ASK
    if not isinstance(guess, (list, tuple, set)) or not all(isinstance(g, str) for g in guess):
        return f"答案是一个列表,里面是设置名,例如 [\"{labels[0]}\"]"
    unknown = [g for g in guess if g not in labels]
    if unknown:
        return f"没有叫 {unknown[0]!r} 的设置;设置名是:{', '.join(labels)}"
    answer = {SETUP_LABELS[e.setup] for e in effects if e.mode == "fresh" and fully_back(e)}
    if set(guess) != answer:
        return ("不对。想一想每种设置下,子 agent 干活时父 agent 的那份 prompt 去了哪里:被覆盖了、"
                "被存进主机内存了,还是留在另一个槽位里?")
    if not answer:
        return ("对:一种也没有。全新的子 agent 和父 agent 共用 system prompt 和工具,服务器把它排进父 agent 的槽位,"
                "又觉得槽位里的东西还够用,既不存进主机缓存,也不换槽位。")
    return "对:" + "、".join(sorted(answer)) + "。只有在这些设置下,子 agent 干活时父 agent 的 prompt 没有丢。"
