"""Checker functions for lesson A2·1's exercises. Each returns a short Chinese verdict.

    check_fifth_tool(guess)          # exercise 1: how many tokens write_file adds to the four tools' block
    check_retry_cached(rec, guess)   # exercise 2: what the retry request of the recording read from the cache
"""
from __future__ import annotations

from miniagent.tools import Toolbox, Workspace

from chapters.a2.experiments.call_shapes import SYSTEM, four_definitions
from chapters.a2.tool_blocks import block_tokens
from prefixlab.paths import TOY_REPO
from prefixlab.presenting.answers import ask, is_int, more_or_less


def fifth_tool_tokens() -> int:
    """Tokens the block grows by when write_file joins the four tools (course template)."""
    four = four_definitions(Workspace(TOY_REPO))
    five = four + [Toolbox(Workspace(TOY_REPO), memory=None).handlers["write_file"].definition]
    return block_tokens(SYSTEM, five) - block_tokens(SYSTEM, four)


def check_fifth_tool(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = fifth_tool_tokens()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。模板把每个工具写成一行 JSON:名字、说明、每个参数的类型和说明。"
                "可以用 tool_blocks.block_tokens 自己算一遍:五个工具减四个工具。")
    return (f"对:{answer} 个 token。一个工具的定义就这么多,它跟着每一个请求走;"
            "给几个工具划算,是 A2·2 的问题。")


def retry_call(rec):
    """The retry request of the text-retry session: the first call that carries the correction."""
    return rec.session_calls("text-retry")[1]


def check_retry_cached(rec, guess) -> str:
    if not is_int(guess):
        return ask(guess)
    call, before = retry_call(rec), rec.session_calls("text-retry")[0]
    if guess != call.cached_tokens:
        return (f"不对,{more_or_less(guess, call.cached_tokens)}。重试的请求以上一个请求开头,后面多了写坏的回答和一句纠正;"
                "上一个请求的 prompt 有多少 token?llama-server 能从槽位里读取多少(A4·1)?")
    return (f"对:{call.cached_tokens:,}。上一个请求有 {before.prompt_tokens:,} 个 token,"
            f"重试只需要重算 {call.prompt_tokens - call.cached_tokens:,} 个:写坏的回答、纠正和新的生成提示。"
            "在本地,一次重试的代价主要是多生成一遍回答;在云端,整段前缀还要按读取价再付一次。")
