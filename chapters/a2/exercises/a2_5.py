"""Checker functions for lesson A2·5's exercises. Each returns a short Chinese verdict.

    check_required_prose(answer)   # exercise 1: a required request with a larger max_tokens, predicted: "a", "b" or "c"
    check_second_read(guess)       # exercise 2: cached_tokens of the recording's second request, exactly
    check_final_answer(answer)     # exercise 3: without the final-answer choice: "answers" or "keeps_calling"
"""
from __future__ import annotations

from chapters.a2.figures.ways import recording
from prefixlab.cache import calculator
from prefixlab.presenting.answers import ask, is_int, more_or_less

REQUIRED_CHOICES = ("a", "b", "c")


def check_required_prose(answer) -> str:
    if answer not in REQUIRED_CHOICES:
        return '先把答案写成 "a"、"b" 或 "c",再运行这个单元格。'
    if answer == "a":
        return ("不对。auto 下模型写完那句状态就能结束;required 的语法不许在调用之前结束。"
                "录制里 required 的回答为什么每次都写满了上限?")
    if answer == "b":
        return ("不对。放宽 max_tokens 不改语法:调用之前那段可选的正文还在,模型照旧可以先写它想写的话。"
                "再看一遍源码那一行,调用之前允许什么?")
    return ("对:语法允许调用之前有任意长的正文,却不许在写出调用之前结束。放宽上限,模型要么在某处写出 <tool_call> 和一个调用,"
            "要么一直写到新的上限;哪一种,要量才知道。从第一个 token 起就是调用,要发 JSON schema。")


def second_read() -> tuple[int, int]:
    """The second request of the recording: what the server read, and the calculator's prediction."""
    rec = recording()
    row = calculator.analyze(rec)[1]
    return rec.calls[1].cached_tokens, row.read


def check_second_read(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    measured, predicted = second_read()
    if guess != measured:
        return (f"不对,{more_or_less(guess, measured)}。第二个请求的 prompt 和第一个一字不差(两种方式只差在"
                "采样参数上)。服务器能读取整个 prompt 吗?想一想 A4·1 的 n−1。")
    return (f"对:{measured} 个,计算器也预测 {predicted} 个。prompt 一模一样,可最后一个 token 总要重算,"
            "它的输出才能用来写回答的第一个 token(A4·1)。tool_choice 和 response_format 都不进 prompt,所以不挡读取。")


def check_final_answer(answer) -> str:
    if answer not in ("answers", "keeps_calling"):
        return '先把答案写成 "answers" 或 "keeps_calling",再运行这个单元格。'
    if answer == "answers":
        return ("不对。语法只许 schema 里列出的形状;没有 final_answer,合乎 schema 的回答就只剩\"调用六个工具之一\"。"
                "模型想说\"做完了\",写得出来吗?")
    return ("对:每一个回答都只能是一个调用,模型再也不能说\"做完了\";循环只能靠轮数、预算或守卫停下。"
            "这也是 required 一类\"必须调用\"的开关的通病:要么给一个结束用的工具,要么下一轮换回 auto。")
