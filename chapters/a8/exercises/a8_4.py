"""Checker functions for lesson A8·4's exercises. Each returns a short Chinese verdict.

    check_qwen_older_minimum(guess)   # exercise 1: Qwen's reads over the session with the older page's 256 minimum
    check_deepseek_interval(guess)    # exercise 2: DeepSeek's reads over the session with a unit every 256 tokens
"""
from __future__ import annotations

from prefixlab.presenting.answers import ask, is_int, more_or_less

from chapters.a8.figures import six

OLDER_MINIMUM = 256   # the implicit-cache minimum on 百炼's older page (the newer one says 1,024)
INTERVAL = 256        # a guess at DeepSeek's unpublished interval, for the exercise only


def qwen_older_minimum() -> int:
    return sum(six.reads("qwen", implicit_min_tokens=OLDER_MINIMUM))


def deepseek_interval() -> int:
    return sum(six.reads("deepseek", interval=INTERVAL))


def check_qwen_older_minimum(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = qwen_older_minimum()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。用 six.reads(\"qwen\", implicit_min_tokens={OLDER_MINIMUM}) 重放一遍,"
                "把每个请求的读取加起来;最低长度只挡住短于它的读取。")
    return (f"对:{answer:,}。两页的最低长度只差在开头几个短请求上:它们的前缀不到 1,024 个 token,新页一个也不读,"
            "旧页照读。同一家、同一天,两页文档给出两个账单。")


def check_deepseek_interval(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = deepseek_interval()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。用 six.reads(\"deepseek\", interval={INTERVAL}) 重放,再加起来;"
                "每 256 个 token 存一个单元之后,压缩后的请求能读到哪个单元?")
    return (f"对:{answer:,}。固定间隔的单元让压缩之后的请求也能读到一个整单元,不再只读最短的那个;"
            "DeepSeek 没有公布这个间隔,所以正文的数字不假设它。")
