"""Checker functions for lesson A2·4's exercises. Each returns a short Chinese verdict.

    check_tokens_per_request(guess)   # exercise 1: what the server's three tools add to every request, within 10 %
    check_read_after_change(guess)    # exercise 2: cached_tokens of the first request after the change, within 5 %
    check_which_server_last(answer)   # exercise 3: which of two servers should come last: "changing" or "fixed"
"""
from __future__ import annotations

from chapters.a2.figures.mcp import offline, sessions
from prefixlab.presenting.answers import ask, more_or_less


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_tokens_per_request(guess) -> str:
    if not _number(guess):
        return ask(guess, whole=False)
    data = offline()
    answer = data["server_block_tokens"]
    if abs(guess - answer) > answer * 0.1:
        return (f"不对,{more_or_less(guess, answer)}(差了一成以上)。每个工具的 token 数在上面的表里;"
                "服务器给了哪三个工具?")
    return (f"对:{answer} 个 token,每个请求都带着;miniagent 自己的六个工具是 {data['own_block_tokens']} 个。"
            "SDK 从函数签名生成的 schema 里还有 title 这样的字段,也都算数。")


def check_read_after_change(guess) -> str:
    if not _number(guess):
        return ask(guess, whole=False)
    s = sessions()["one-server-changed"]
    r = s.requests[s.changed_at - 1]
    if abs(guess - r.cached) > r.cached * 0.05:
        return (f"不对,{more_or_less(guess, r.cached)}。新工具加在工具块的哪里?它前面的 token 和上一个请求一样,"
                "后面的呢?")
    return (f"对:服务器读取了 {r.cached:,} 个(计算器预测 {r.predicted:,}),这个请求一共 {r.prompt:,} 个 token。"
            "断点就在旧工具列表的末尾:system 文字和旧的工具还在,之后的一切(包括全部历史)都重算。")


def check_which_server_last(answer) -> str:
    if answer not in ("changing", "fixed"):
        return '先把答案写成 "changing"(会变的那个放最后)或 "fixed"(不变的那个放最后),再运行这个单元格。'
    c = offline()["change"]
    middle, last = c["two_servers"]["recomputed"], c["two_servers_last"]["recomputed"]
    if answer != "changing":
        return (f"不对。会变的服务器放在前面时,它加的工具插在另一个服务器的工具前面,第一个请求就要重算 {middle} 个 token;"
                "想一想断点落在哪里。")
    return (f"对:会变的服务器放在最后,新工具接在整个工具块的末尾,第一个请求只重算 {last} 个 token;"
            f"放在前面要重算 {middle} 个。断点之后的历史两种放法都要重算;差别是另一个服务器的那几个工具。")
