"""Checker functions for lesson A7·4's exercises (the review half). Each returns a short Chinese verdict.

    check_back_cached(review_recording, guess)   # exercise 1: the parent's first request after a fresh reviewer
    check_cloud_back(reviews, guess)             # exercise 2: the same request under OpenAI's rule: A, B or C
    check_live_verdict(live_reviews, guess)      # exercise 3: which way judged BUG on its first line more often

The parallel half's checkers are in ``a7_4_parallel.py``.
"""
from __future__ import annotations

from prefixlab.presenting.answers import ASK, ask, is_int, more_or_less

from chapters.a7.figures.review import LiveReview, Review, live_tally, review_of

TOKENS = 5  # a few tokens of template glue either way
WORDS = f"和服务器报告的数相差不超过 {TOKENS} 个 token 都算对"
CLOUD_CHOICES = {"A": "只有 system prompt 和工具那一段", "B": "上一个请求的绝大部分(按规则的粒度取整)",
                 "C": "什么也读不回"}
LIVE_CHOICES = ("self", "fresh", "same")


def check_back_cached(recording, guess) -> str:
    """A7-4, one slot without host cache: what the parent's first request after the fresh reviewer reads."""
    if not is_int(guess):
        return ask(guess)
    r = review_of(recording, "fresh")
    answer = r.back.request.measured
    if abs(guess - answer) > TOKENS:
        return (f"不对,{more_or_less(guess, answer)}。评审子 agent 的请求排进了唯一的槽位;"
                "它和父 agent 的 prompt 从第一个 token 起相同的是哪一段?(A7·2 的全新子 agent 是同一回事。)")
    child = next(s for s in r.review if s.request.role == "child")
    return (f"对:{answer:,}({WORDS}),正是评审子 agent 自己第一个请求读取的那一段({child.request.measured:,} 个)。"
            f"父 agent 这个请求有 {r.back.request.prompt_tokens:,} 个 token,其余的全部重算。")


def cloud_choice(review: Review) -> str:
    """Which of CLOUD_CHOICES the cloud rule predicts for the parent's return after the reviewer."""
    parent_before = next(s for s in reversed(review.steps[:review.steps.index(review.back)])
                         if s.request.role == "parent")
    read = review.back.cloud_read
    if read == 0:
        return "C"
    if read >= parent_before.request.prompt_tokens - 128:   # OpenAI counts in blocks of 128 tokens
        return "B"
    return "A"


def check_cloud_back(reviews: dict[str, Review], guess) -> str:
    """A7-4: under OpenAI's classic rule (no slots), what the parent's return request reads: A, B or C."""
    if guess is None:
        return ASK
    if not isinstance(guess, str) or guess.strip().upper() not in CLOUD_CHOICES:
        return "答案是一个字母:" + ";".join(f"{k} {v}" for k, v in CLOUD_CHOICES.items())
    answer = cloud_choice(reviews["fresh"])
    if guess.strip().upper() != answer:
        return ("不对。云端的缓存是按前缀存的,不是按槽位:一个请求写进去的前缀,别的请求来了也不会把它挤掉"
                "(只要它还没过期)。父 agent 回来时,它上一个请求的前缀还在不在?")
    back = reviews["fresh"].back
    return (f"对:{answer},{CLOUD_CHOICES[answer]}:计算器按 OpenAI 的规则推算读取 {back.cloud_read:,} 个 token"
            f"(这个请求 {back.request.prompt_tokens:,} 个)。槽位的代价是本机服务器的事,云端没有。")


def check_live_verdict(items: list[LiveReview], guess) -> str:
    """A7-4's live check: which way wrote BUG on the review's first line in more runs ('self', 'fresh' or 'same')."""
    if guess is None:
        return ASK
    if guess not in LIVE_CHOICES:
        return "答案是 \"self\"(同一会话里自己评审)、\"fresh\"(全新的评审子 agent)或 \"same\"(一样多)之一"
    tally = live_tally(items)
    s, f = tally["self"]["bug_verdict"], tally["fresh"]["bug_verdict"]
    answer = "self" if s > f else "fresh" if f > s else "same"
    told = (f"自己评审 {s}/{tally['self']['runs']} 次判 BUG,全新的评审者 {f}/{tally['fresh']['runs']} 次。"
            "判 BUG 不等于找到了错误:往下看评审里写了什么。")
    if guess != answer:
        return "不对。" + told
    return "对。" + told
