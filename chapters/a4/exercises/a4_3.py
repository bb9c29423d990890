"""Checker functions for lesson A4·3's exercises. Each returns a short Chinese verdict.

The page shows every request under the llama.cpp rule round by round and the census of one request;
the exercises ask about what it leaves out (a cloud rule's view, a smaller window of recent entries,
a whole session's total), so no part of the page prints their answers. Every answer is computed from
the recording when the checker runs, and shown only once the reader's answer is right.

    check_openai_read(rec, guess)      # exercise 1: the message list's last request under OpenAI's rule
    check_smaller_window(rec, guess)   # exercise 2: with 3 recent entries, the first round that rewrites
    check_session_ratio(rec, guess)    # exercise 3: recomputed over the session, notes vs message list
"""
from __future__ import annotations

from miniagent.variants.transcript import render

from prefixlab.cache import calculator
from prefixlab.presenting.answers import ask, is_int, more_or_less

from chapters.a4.figures.rewrite_history import TRAILER, of, round_rows

SMALLER_WINDOW = 3      # exercise 2: entries shown in full (the recording used miniagent.variants.transcript.RECENT)
RATIO_TOLERANCE = 0.2   # exercise 3: an answer within 0.2 of the ratio counts


def _number(guess) -> bool:
    return isinstance(guess, (int, float)) and not isinstance(guess, bool)


def openai_read(recording) -> tuple[int, int]:
    """(tokens OpenAI's rule reads, prompt tokens) for the message list's last request."""
    last = recording.session_calls("messages")[-1]
    row = next(r for r in calculator.analyze(recording, "openai", sessions="messages") if r.seq == last.seq)
    return row.read, row.prompt_tokens


def check_openai_read(recording, guess) -> str:
    """Exercise 1: the message list's last request, predicted with OpenAI's automatic caching."""
    if not is_int(guess):
        return ask(guess)
    answer, prompt = openai_read(recording)
    if guess != answer:
        hint = ("OpenAI 的自动缓存只在 1,024 个 token 起、每 128 个 token 一档地记前缀;上一轮的请求有多长?"
                "它里面能凑成几整档?")
        return f"不对,{more_or_less(guess, answer)}。{hint}"
    return (f"对:{answer:,}(prompt 共 {prompt:,} 个)。消息列表每轮只在末尾追加,上一轮的请求整段都是前缀;"
            "OpenAI 的规则把它向下取整到 1,024 加 128 的整数倍,零头重算。llama-server 没有这一步取整。")


def rewrite_rounds(recording, recent_entries: int) -> list[int]:
    """The rounds whose re-rendered transcript (with ``recent_entries`` shown in full) changes text the
    previous round already sent: the previous transcript is not a prefix of this one."""
    conversations = [call.request["messages"] for call in recording.session_calls("messages")]
    bodies = [render(messages, recent_entries=recent_entries)[-1]["content"].rsplit(TRAILER, 1)[0]
              for messages in conversations]
    return [i + 2 for i, (before, after) in enumerate(zip(bodies, bodies[1:])) if not after.startswith(before)]


def check_smaller_window(recording, guess) -> str:
    """Exercise 2: with only SMALLER_WINDOW entries in full, the first round that rewrites an old entry."""
    if not is_int(guess):
        return ask(guess)
    rounds = rewrite_rounds(recording, SMALLER_WINDOW)
    answer = rounds[0]
    if guess != answer:
        hint = ("第 r 轮的记录里有几条?(任务算一条,之后每轮多一个工具结果。)哪一条最先滑出最近 "
                f"{SMALLER_WINDOW} 条?它的文字超过截短的长度了吗?短的那条截不截都一样。")
        return f"不对,{more_or_less(guess, answer)}。{hint}"
    return (f"对:第 {answer} 轮。窗口越小,旧条目越早被截短,打断处也越早从结尾挪到记录中间;"
            f"这个窗口下会改写旧条目的轮是 {', '.join(map(str, rounds))}。")


def session_ratio(recording) -> tuple[float, int, int]:
    """(ratio, recomputed with notes, recomputed with the message list) over the whole session."""
    rows = round_rows(recording)
    notes = sum(r.recomputed for r in of(rows, "transcript-notes"))
    messages = sum(r.recomputed for r in of(rows, "messages"))
    return notes / messages, notes, messages


def check_session_ratio(recording, guess) -> str:
    """Exercise 3: recomputed tokens over the whole session, notes design over the message list."""
    if not _number(guess):
        return ask(guess, whole=False)
    ratio, notes, messages = session_ratio(recording)
    if abs(guess - ratio) > RATIO_TOLERANCE:
        hint = "把图里「每轮重算多少」两条线上的 10 个点各自加起来,再相除;第 1 轮两边都从空缓存算起,也要算进去。"
        return f"不对,{'大了' if guess > ratio else '小了'}(误差超过 {RATIO_TOLERANCE})。{hint}"
    return (f"对:{ratio:.1f} 倍(整段会话重算 {notes:,} 对 {messages:,} 个 token)。"
            "而这还是一段只有 10 轮、最长两千来个 token 的会话:记录越长,每轮从笔记块起重算的部分越长。")
