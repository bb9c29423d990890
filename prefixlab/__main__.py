"""``python -m prefixlab <verb>``: the course's instruments on one command line.

Each verb runs one module's command; ``python -m prefixlab <verb> --help`` shows its options.
The old module names (``python -m prefixlab.verify``, the experiments' ``prefixlab.record_...``) still work.
"""
from __future__ import annotations

import importlib
import os
import sys

# verb -> (module with main(argv), one line for --help)
VERBS = {
    "server": ("prefixlab.serving.server", "下载、编译并运行课程的 llama-server(info / build / start)"),
    "record": ("prefixlab.recording.experiments", "录制一个实验:record NAME [OUT],record --list 列出实验"),
    "verify": ("prefixlab.recording.verify", "离线重新渲染、分词每个录制的请求,和服务器报告的 token 数对账"),
    "compare": ("prefixlab.recording.compare", "两份录制逐请求比较:重录是否复现了同样的数"),
    "report": ("prefixlab.presenting.report", "计算器对一份录制的逐请求表格"),
    "bill": ("prefixlab.presenting.bill", "整单账单:会话文件或录制的逐请求、逐会话、逐子会话用量与合计,可按带日期的价目折算"),
    "eval": ("prefixlab.eval.cli", "评测 agent:在任务集上逐个运行,隐藏检查判定,每次运行写一行结果(results.jsonl)"),
    "gguf-tokenizer": ("prefixlab.cache.gguf_tokenizer", "从 GGUF 模型文件导出分词器文件"),
    "tokenizer-fixtures": ("prefixlab.recording.tokenizer_fixtures", "录制 llama-server 对分词和聊天模板用例的回答"),
}


def usage() -> str:
    width = max(map(len, VERBS))
    lines = [f"  {verb:<{width}}  {line}" for verb, (_, line) in VERBS.items()]
    return ("usage: python -m prefixlab <verb> [options]\n\n课程的测量工具,一个命令行。\n\nverbs:\n" + "\n".join(lines)
            + "\n\npython -m prefixlab <verb> --help 显示该命令的选项;旧的模块名(python -m prefixlab.verify、"
              "各实验的 prefixlab.record_... 等)仍然可用。\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), end="")
        return 0 if argv else 2
    verb, rest = argv[0], argv[1:]
    if verb not in VERBS:
        print(f"{usage()}\npython -m prefixlab: error: unknown verb {verb!r}", file=sys.stderr)
        return 2
    command = importlib.import_module(VERBS[verb][0]).main
    if verb == "record":
        return command(rest, "python -m prefixlab record")
    return command(rest) or 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # piped into a command that stopped reading (e.g. head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
