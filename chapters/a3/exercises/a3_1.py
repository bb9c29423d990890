"""Checker functions for lesson A3·1's exercises. Each returns a short Chinese verdict.

The answers are computed here, from miniagent's code and from runs on the reader's machine, and
shown only once the reader's answer is right; a wrong or missing answer gets a hint, not the number.

    check_prefix_hole(guess)            # exercise 1: which case gets past the string-prefix check
    check_held_seconds(guess)           # exercise 2: a setsid child keeps the pipe after the command ended
    check_env_kept(names, guess)        # exercise 3: how many of these variables reach a command
"""
from __future__ import annotations

import os

from miniagent.confined import command_env

from chapters.a3.escapes import PATH_CASES, path_attempts, run_case

ASK = "先写下你的答案(把 guess = None 改掉),再运行这个单元格。"

EXERCISE_3_NAMES = ("PATH", "HOME", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "SSH_AUTH_SOCK",
                    "KEYBOARD_LAYOUT", "PYTHONPATH")


def check_prefix_hole(guess) -> str:
    """Which path case (a key of PATH_CASES) reads outside the workspace despite the string-prefix check."""
    if guess is None:
        return ASK
    if guess not in PATH_CASES:
        return f"答案是一种情形的名字,可选:{', '.join(PATH_CASES)};收到 {guess!r}"
    holes = [a.case for a in path_attempts() if a.way == "string prefix" and a.outcome == "read outside"]
    if guess in holes:
        return (f"对:{guess}。resolve 之后的真实路径是 <tmp>/ws-old/notes.txt,作为字符串它确实以 <tmp>/ws 开头;"
                "字符串前缀不知道路径是一段一段的。要比的是路径的组成部分(Path.parents / relative_to),不是字符。")
    return "不对,这一种它拦住了。想一想:哪一种情形里,工作区外的那个路径,写成字符串恰好以工作区的路径开头?"


HELD_COMMAND = "setsid sleep 30 & echo started"


def check_held_seconds(guess, timeout: float = 1.0) -> str:
    """``HELD_COMMAND`` under miniagent with a ``timeout``: seconds until run_command returns (±0.5 s)."""
    if guess is None:
        return ASK
    if not isinstance(guess, (int, float)) or isinstance(guess, bool):
        return f"答案是一个秒数,收到 {guess!r}"
    run = run_case("held", "miniagent", timeout, command=HELD_COMMAND)
    if abs(guess - run.seconds) <= 0.5:
        return (f"对:这一次是 {run.seconds:.2f} 秒,交回的结果末尾是:{run.text.splitlines()[-1]}"
                " echo 立刻结束,shell 也立刻退出,可 setsid 出去的 sleep 继承了输出管道的写端;"
                "管道没有读到末尾,miniagent 就一直读到超时,然后停下、杀掉带着本次运行标记的进程。")
    return ("不对。echo 一瞬间就结束了,可 run_command 等的不是 echo,是输出管道读到末尾。"
            "管道的写端还在谁手里?")


def command_env_for(variables: dict) -> dict:
    """command_env as it would be if our environment were exactly ``variables``."""
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(variables)
        return command_env("exercise")
    finally:
        os.environ.clear()
        os.environ.update(saved)


def check_env_kept(guess, names=EXERCISE_3_NAMES) -> str:
    """How many of ``names`` would reach a command miniagent runs (each set in the agent's environment)."""
    if guess is None:
        return ASK
    if not isinstance(guess, int) or isinstance(guess, bool):
        return f"答案是一个整数,收到 {guess!r}"
    env = command_env_for({n: "x" for n in names})
    kept = [n for n in names if n in env]
    if guess == len(kept):
        dropped = [n for n in names if n not in env]
        return (f"对:{len(kept)} 个,{', '.join(kept)}。去掉的是 {', '.join(dropped)}。"
                "注意两处:SSH_AUTH_SOCK 名字里没有那几个词,照样传下去,而拿着它就能用你的 SSH 密钥;"
                "KEYBOARD_LAYOUT 无害,却因为含 KEY 被去掉了。按名字猜,两个方向都会错。")
    return "不对。逐个看名字:miniagent 只看变量名里有没有那几个词(不分大小写),不看值。"
