"""Checker functions for lesson A3·2's exercises. Each returns a short Chinese verdict.

The answers are computed from the A3-2 recording and from miniagent/approval.py, and shown only once
the reader's answer is right; a wrong or missing answer gets a hint, not the answer.

    check_fresh_after_denial(rec, guess)  # exercise 1: what the request after the denied edit recomputed
    check_asked_with(guess)               # exercise 2: questions under another allow-list (the script, replayed offline)
    check_rule_count(guess)               # exercise 3: how many of four commands one prefix rule lets through
"""
from __future__ import annotations

from miniagent.approval import Approval, rule_allows

from chapters.a3.approvals import after_refusal
from chapters.a3.paths import A32_DIR
from prefixlab.recording.policy import load_script

ASK = "先写下你的答案(把 guess = None 改掉),再运行这个单元格。"
RULE = "run_command: python tools/check.py"
COMMANDS = ("python tools/check.py", "python tools/check.py && git push", "python tools/check.py > log.txt",
            "python tools/check.py --verbose")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def denial_prompt_tokens(rec) -> int:
    """The prompt of the request in ``ask-deny`` that carries the denial (the exercise states it)."""
    return after_refusal(rec, "ask-deny").prompt


def check_fresh_after_denial(rec, guess) -> str:
    """Session ``ask-deny``: tokens recomputed by the request that carries the denied edit's message."""
    if guess is None:
        return ASK
    if not _is_int(guess):
        return f"答案是一个整数,收到 {guess!r}"
    row = after_refusal(rec, "ask-deny")
    fresh = row.prompt - row.read
    if guess == fresh:
        return (f"对:{fresh:,}。拒绝之前,ask-deny 和 auto 发出的请求一模一样(同一个脚本),所以拒绝前那个请求就是"
                f"auto 的第 {row.round - 1} 个请求,{row.previous_prompt:,} 个 token;拒绝只是往末尾接了助手的调用和一条工具消息,"
                f"前缀一个 token 也没动,服务器把上一个请求整份读取({row.read:,} 个),只重算新接上的这些。")
    return ("不对。想两件事:拒绝之前,这个会话和 auto 会话发的请求有什么不同(图里有 auto 的每一个请求)?"
            "拒绝的那条消息接在历史的哪里,它改没改前面的任何一个 token?")


EXERCISE_2_ALLOW = ("write_file", "run_command: python tools/check.py --verbose")


def questions_under(allow: tuple[str, ...]) -> list[str]:
    """The tools of the script's calls that ``ask`` with ``allow`` would put to the human (no server needed)."""
    approval = Approval("ask", allow, human=lambda name, args: True)
    for turn in load_script(A32_DIR / "script.yml")["replies"]:
        if "tool" in turn:
            approval.check(turn["tool"], turn["args"])
    return [name for name, _, _ in approval.asked]


def check_asked_with(guess, allow: tuple[str, ...] = EXERCISE_2_ALLOW) -> str:
    """How many questions the A3-2 task would put to the human under ``ask`` with ``allow``."""
    if guess is None:
        return ASK
    if not _is_int(guess):
        return f"答案是一个整数,收到 {guess!r}"
    asked = questions_under(allow)
    if guess == len(asked):
        return (f"对:{len(asked)} 次({'、'.join(asked)})。write_file 盖不住 edit_file,工具名要一字不差;"
                "前缀规则要求命令以整段前缀开头,python tools/check.py 比规则里的前缀短,不算匹配。")
    return "不对。一条条对:工具名完全一样吗?命令是不是以规则里的整段前缀开头?"


def check_rule_count(guess) -> str:
    """How many of ``COMMANDS`` the rule ``RULE`` lets run without asking."""
    if guess is None:
        return ASK
    if not _is_int(guess):
        return f"答案是一个整数,收到 {guess!r}"
    allowed = [c for c in COMMANDS if rule_allows(RULE, "run_command", {"command": c})]
    if guess == len(allowed):
        return (f"对:{len(allowed)} 条:{';'.join(allowed)}。带 && 的会接着跑另一条命令,带 > 的会写文件,"
                "前缀规则一律不放行,只能交给人。加参数不含 shell 操作符,照样算前缀匹配——"
                "这也说明前缀规则放行的是\"以这串字开头的任何命令\",写规则时要想到参数。")
    return "不对。逐条看:它以允许的前缀开头吗?里面有没有 shell 用来接命令或重定向的字符?"
