"""Checker functions for lesson A2·3's exercises. Each returns a short Chinese verdict.

    check_pages_to_line(guess)      # exercise 1: paged reads from the start until the ERR line is seen
    check_pages_tokens(guess)       # exercise 2: the tokens of all those pages, within 10 %
"""
from __future__ import annotations

from miniagent.paging import PAGE_CHARS, PAGE_LINES, page, paged

from chapters.a2.figures.outputs import data
from chapters.a2.outputs_and_edits import BIG, NEEDLE
from prefixlab.presenting.answers import ask, is_int, more_or_less


def pages_to_needle() -> int:
    """read_file calls, page after page from line 1, until the page holding the ERR line."""
    text, start, calls = BIG.read_text(encoding="utf-8"), 1, 0
    while True:
        body, following = page(text, start)
        calls += 1
        if NEEDLE in body or following is None:
            return calls
        start = following


def check_pages_to_line(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = pages_to_needle()
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。一页最多 {PAGE_LINES} 行(也最多 {PAGE_CHARS:,} 个字符,这个文件的行都很短);"
                "ERR 那一行是第几行?从第 1 行开始,第 k 页最后一行是第几行?")
    return (f"对:{answer} 次调用。每一次都是一个完整的请求,带着前面所有的页;"
            "知道要找什么时,一条 grep -n ERR 命令一次就找到,这就是 pi 的 bash 把整份输出存进文件、让模型自己去搜的道理。")


def pages_tokens() -> int:
    """Tokens of all the pages read until the ERR line (course tokenizer): what the last request carries."""
    from chapters.a2.outputs_and_edits import BIG_PATH, text_tokens
    text, start, total = BIG.read_text(encoding="utf-8"), 1, 0
    for _ in range(pages_to_needle()):
        total += text_tokens(paged(text, BIG_PATH, start))  # the page and its pointer, as the model reads it
        start = page(text, start)[1]
    return total


def check_pages_tokens(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer, whole = pages_tokens(), data()["outputs"]["whole"]["tokens"]
    if abs(guess - answer) > answer * 0.1:
        return (f"不对,{more_or_less(guess, answer)}(差了一成以上)。每一页大约和第一页一样长;"
                "读到那一行要几页,练习 1 已经算过了。")
    return (f"对,在一成之内:{answer:,} 个 token,整个文件一次读入是 {whole:,} 个。"
            "逐页读到中间,已经付了大半个文件的钱,而且这些页以后每一轮都跟着重发;"
            "知道要找什么时,先搜索,再只读那一页。")
