"""Checker functions for lesson A9·1's exercises. Each returns a short Chinese verdict.

    check_failing_tests(guess)   # exercise 1: the hidden tests that fail on whole-numbers' starting workspace
    check_damaged_why(guess)     # exercise 2: the first words of the why of a run that deleted tools/check.py
    check_passes(guess)          # exercise 3: how many runs of the constrained design passed
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from prefixlab.eval.harness import file_hashes, run_check, verdict
from prefixlab.eval.tasks import load_tasks
from prefixlab.presenting.answers import ASK, ask, is_int, more_or_less

from chapters.a9.figures import task_set
from chapters.a9.paths import TASKS

EXERCISE_TASK = "whole-numbers"
EXERCISE_DESIGN = "constrained"


def failing_tests() -> set[str]:
    """The hidden tests of EXERCISE_TASK that fail on its starting workspace (run now, not stored)."""
    task, = load_tasks(TASKS, [EXERCISE_TASK])
    with tempfile.TemporaryDirectory() as tmp:
        results = run_check(task, task.make_workspace(Path(tmp) / "repo"))
    return {name for name, result in results.items() if result != "pass"}


def check_failing_tests(guess) -> str:
    if guess is None:
        return ASK
    if not isinstance(guess, (set, list, tuple)) or not all(isinstance(g, str) for g in guess):
        return "答案是测试名的集合,比如 {\"name_a\", \"name_b\"}(不带 test_ 前缀)。"
    answer = failing_tests()
    guess = {g.removeprefix("test_") for g in guess}
    if guess != answer:
        return (f"不对:你写了 {len(guess)} 个,对的有 {len(guess & answer)} 个。看 task.yml 的 fail_to_pass,"
                "再想想 pass_to_pass 那几个在起始工作区上是什么结果。")
    return (f"对:{', '.join(sorted(answer))}。它们正是 fail_to_pass:起始工作区上失败、修好后必须通过;"
            "pass_to_pass 的那几个一开始就通过,修完也不能坏。")


def damaged_why() -> str:
    """The why of a finished run whose agent deleted tools/check.py (run now on a fresh workspace)."""
    task, = load_tasks(TASKS, [EXERCISE_TASK])
    with tempfile.TemporaryDirectory() as tmp:
        root = task.make_workspace(Path(tmp) / "repo")
        before = file_hashes(root, task.protected)
        (root / "tools" / "check.py").unlink()
        return verdict(task, root, before, "answered", None)[1]


def check_damaged_why(guess) -> str:
    if not isinstance(guess, str) or not guess.strip():
        return ASK
    answer = damaged_why()
    if not answer.startswith(guess.strip()) or len(guess.strip()) < 5:
        return "不对。想想 harness 在运行隐藏检查之前先看什么:受保护的文件还在不在、有没有被改。"
    return (f"对:{answer!r}。受保护的文件被删或被改,检查的结论就没有意义了,所以这一条排在最前面,"
            "哪怕隐藏检查本身会通过。")


def passes() -> int:
    return task_set.passed(task_set.rows(), EXERCISE_DESIGN)[0]


def check_passes(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = passes()
    if guess != answer:
        return f"不对,{more_or_less(guess, answer)}。数 results.jsonl 里 design 是 {EXERCISE_DESIGN}、passed 是 true 的行。"
    done, runs = task_set.passed(task_set.rows(), EXERCISE_DESIGN)
    return f"对:{runs} 次运行里通过 {done} 次。次数这么少,只能说明“发生过”,还说明不了设计好坏(A9·2 讲要跑多少次)。"
