"""Checker functions for lesson A6·3's exercises. Each returns a short Chinese verdict.

As in ``a6_2`` (lesson A6·2) and ``a6_1``: every answer is computed from the T12
recording or from the skills manifest with miniagent's own index code (never stored), and shown
only once the reader's answer is right; a wrong or missing answer gets a hint, never the number.

    check_fit(rec, manifest, guess)               # 1: how many whole Hermes skills the inline prompt held
    check_added_hit(rec, guess)                   # 2: the hit right after a skill was added, index at the volatile front
    check_index_tokens(manifest, cap, guess)      # 3: tokens of the whole Hermes index with another description cap
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from miniagent.skills import Skill, index_entry
from prefixlab.cache.tokenizer import load_tokenizer, text_token_ids
from prefixlab.paths import TOKENIZER

from .tolerance import near
from prefixlab.presenting.answers import ASK, is_int, more_or_less
from ..figures.skills import Manifest, break_view

INDEX_TOLERANCE = 0.05  # exercise 3 asks for an estimate: within 5% counts


def inlined_skills(recording, session: str = "inline-day1") -> list[str]:
    """Names of the skills whose whole text is in the session's first system prompt, in prompt order.

    Each inlined skill starts a section ``## <name> (<location>)`` (miniagent.variants.inline_skills.inline);
    the names come from the recorded session's skills folder.
    """
    system = recording.session_calls(session)[0].request["messages"][0]["content"]
    names = (recording.session_info(session) or {}).get("skills", {}).get("names", [])
    found = [n for n in names if f"\n## {n} (" in system]
    return sorted(found, key=lambda n: system.index(f"\n## {n} ("))


def check_fit(recording, manifest: Manifest, guess, session: str = "inline-day1") -> str:
    """Exercise 1: how many whole skill texts the inline design could put in the served window."""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(技能的份数)。"
    names = inlined_skills(recording, session)
    answer = len(names)
    if guess == answer:
        largest = max(c.prompt_tokens for c in recording.session_calls(session) if c.kind == "model_call")
        hermes = sum(1 for n in names if n in {s.name for s in manifest.skills})
        return (f"对:{answer} 份(我们的 {answer - hermes} 份,加上 Hermes 最短的 {hermes} 份);"
                f"会话里最大的请求 {largest:,} 个 token。Hermes 一共带了 {len(manifest.skills)} 份。")
    return (f"不对,{more_or_less(guess, answer)}。窗口要装下的不只是技能:基础 prompt、AGENTS.md、工具定义、任务,"
            "还有越来越长的对话——会话里最长的那个请求也不能超出。上面的表给了 Hermes 技能的长度:最短的一份就有几百个 token。")


def check_added_hit(recording, guess, session: str = "added-volatile-day1") -> str:
    """Exercise 2: cached tokens of the first request after the skill was added, index at the volatile front."""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(token 数)。"
    view = break_view(recording, session, session)
    if near(guess, view.cached):
        return (f"对:服务器报告 cached_tokens = {view.cached:,}(prompt 共 {view.prompt_tokens:,} 个 token),"
                f"前缀断在 {view.break_block}:索引之前的基础 prompt 和 AGENTS.md 都读取了,"
                f"从索引起的 {view.recomputed:,} 个 token 重算——工具定义和全部对话也在其中。")
    return (f"不对,{more_or_less(guess, view.cached)}。变的是索引;它前面还有哪几块?"
            "服务器比较的是整个 token 序列,索引后面的块即使一个字没变,也得跟着重算。")


@lru_cache(maxsize=None)
def _tokenizer():
    return load_tokenizer(TOKENIZER)


def index_tokens(manifest: Manifest, cap: int) -> int:
    """Tokens of every skill's index line (miniagent's format, description cut to ``cap`` characters)."""
    tok = _tokenizer()
    total = 0
    for s in manifest.skills:
        skill = Skill(s.name, s.description, s.path, Path(s.path), "")
        total += len(text_token_ids(tok, index_entry(skill, cap) + "\n"))
    return total


def check_index_tokens(manifest: Manifest, cap: int, guess) -> str:
    """Exercise 3: the whole Hermes index's tokens with descriptions cut at ``cap`` characters (within 5%)."""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(token 数)。"
    answer = index_tokens(manifest, cap)
    if abs(guess - answer) <= INDEX_TOLERANCE * answer:
        cut = sum(1 for s in manifest.skills if len(s.description) > cap)
        return (f"对:{answer:,} 个 token(你的估计差 {abs(guess - answer):,} 个)。上限 {cap:,} 个字符时,"
                f"{len(manifest.skills)} 份里有 {cut} 份的描述被截短。")
    return (f"不对,{more_or_less(guess, answer)}(误差超过 {INDEX_TOLERANCE:.0%})。manifest 里有每份技能的描述和路径;"
            "用 miniagent.skills.index_entry 拼出每一行,再用课程的分词器数一数,或者先按\"几个字符一个 token\"估一估。")


__all__ = ["ASK", "check_added_hit", "check_fit", "check_index_tokens", "index_tokens", "inlined_skills"]
