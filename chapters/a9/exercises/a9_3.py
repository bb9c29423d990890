"""Checker functions for lesson A9·3's exercises. Each returns a short Chinese verdict.

    check_tokens_at_best(guess)   # exercise 1: input tokens per solved task if the pass rate were the top end of
                                  #             its 95 % interval (the least a solved task can cost, measured)
    check_reads_per_run(guess)    # exercise 2: Kimi's predicted cache reads per run, for one design
"""
from __future__ import annotations

from prefixlab.eval import stats
from prefixlab.presenting.answers import ask, is_int, more_or_less

from chapters.a9.figures import passrate, price

READS_RULE = "kimi"  # exercise 2 counts Kimi's predicted reads


def best_design() -> str:
    """The live design that solved the most (ties: the harness's order): both exercises ask about it."""
    return max(passrate.live_designs(), key=lambda d: passrate.summary(d).passed)


def tokens_at_best() -> int:
    """Measured input tokens per run divided by the top end of the pass rate's 95 % interval, rounded."""
    p = price.get(best_design(), "llamacpp")
    return round(p.prompt_tokens / p.runs / stats.wilson(p.solved, p.runs).high)


def reads_per_run() -> int:
    p = price.get(best_design(), READS_RULE)
    return round(p.read_tokens / p.runs)


def check_tokens_at_best(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = tokens_at_best()
    if abs(guess - answer) > 1:
        return (f"不对,{more_or_less(guess, answer)}。每个解决的任务 = 每次运行的输入 token / 通过率;通过率取"
                f"stats.wilson(通过, 运行).high,每次运行的输入 token 是 price.get(\"{best_design()}\", \"llamacpp\") 的 "
                "prompt_tokens / runs。")
    return (f"对:约 {answer:,} 个。这是乐观的一端:真实的通过率多半比区间上端低,每解决一个任务只会更贵;"
            "区间的下端是 0 时,另一端是无穷大。")


def check_reads_per_run(guess) -> str:
    if not is_int(guess):
        return ask(guess)
    answer = reads_per_run()
    if abs(guess - answer) > 1:
        return (f"不对,{more_or_less(guess, answer)}。price.get(\"{best_design()}\", \"kimi\") 的 read_tokens 是全部运行"
                "按 Kimi 的规则读取的 token 合计,除以 runs(四舍五入到整数)。")
    return (f"对:约 {answer:,} 个。和 llama.cpp 实测的读取比一比:Kimi 按 256 个 token 一块读,还能跨运行读取"
            "上一次运行留下的 system prompt 和工具定义。")
