"""Learner-facing Chinese for the English lines library code writes (the course's CLIs and rules).

The labs show what miniagent's ``session tree`` and the llama.cpp rule's events say, in Chinese. A
line no pattern knows stays as it is, so nothing is lost when a library adds a new message.
"""
from __future__ import annotations

import re

# llama.cpp rule events (prefixlab/cache/rules/llamacpp.py): what the server did with its slots and host cache
_EVENTS = [
    (r"slot (\d+) picked by similarity ([\d.]+) \(f_keep ([\d.]+)\)",
     r"挑中槽位 \1:和新 prompt 的相似度 \2(槽位里能留下的比例 f_keep \3)"),
    (r"slot (\d+) picked as least recently used", r"挑中槽位 \1:没有足够相似的槽位,挑最久没用的那个"),
    (r"save slot (\d+): already in host cache, skipped", r"槽位 \1 的内容主机缓存里已经有了,不再存"),
    (r"save slot (\d+): state larger than cache-ram, skipped", r"槽位 \1 的状态比 --cache-ram 还大,不存"),
    (r"save slot (\d+) \((\d+) tokens\) to host cache", r"把槽位 \1(\2 个 token)存进主机缓存"),
    (r"load host entry (.+) \((\d+) tokens\) into slot (\d+)", r"从主机缓存把 \1 的条目(\2 个 token)装回槽位 \3"),
    (r"host cache: dropped entry (.+) \((\d+) tokens\), a prefix of slot (\d+)",
     r"主机缓存丢掉 \1 的条目(\2 个 token):它只是槽位 \3 的前缀"),
    (r"host cache: evicted oldest entry (.+) to make room", r"主机缓存腾地方:挤掉最早的条目 \1"),
    (r"host cache: evicted oldest entry (.+) \(byte limit\)", r"主机缓存超出字节上限:挤掉最早的条目 \1"),
    (r"host cache: evicted oldest entry (.+) \(token limit (\d+)\)", r"主机缓存超出 token 上限 \2:挤掉最早的条目 \1"),
    (r"slot (\d+): reused a chunk of (\d+) tokens,? ?(.*)", r"槽位 \1:复用了一段 \2 个 token(\3)"),
]
_ORIGIN = (r"request (\d+) \(([^)]+)\)", r"请求 \1(\2)")

# miniagent's `session tree` (miniagent/session_cli.py render_tree)
_TREE = [
    (r"^(.*): (\d+) entr(?:y|ies), (\d+) lea(?:f|ves), (\d+) branch points?, (\d+) compactions?$",
     r"\1:\2 个条目,\3 个叶子,\4 个分叉点,\5 次压缩"),
    (r"^current leaf: (\S+) \(the last entry written; a plain run continues there\)$",
     r"当前叶子:\1(最后写下的条目;不带参数的运行从这里接着写)"),
    (r"branch (\d+) of (\d+)$", r"第 \1 条分支(共 \2 条)"),
    (r" <- current leaf$", r" ← 当前叶子"),
    (r" \(leaf\)$", r"(叶子)"),
    (r"model_call round (\d+): prompt (\d+) tokens, cached (\S+)$", r"model_call 第 \1 轮:prompt \2 token,读取 \3"),
    (r"^note: ", r"注意:"),
]


def _apply(rules, line: str) -> str:
    for pattern, repl in rules:
        line = re.sub(pattern, repl, line)
    return line


def server_event(line: str) -> str:
    """One llama.cpp rule event in Chinese (unknown events unchanged)."""
    for pattern, repl in _EVENTS:
        if re.fullmatch(pattern, line):
            return re.sub(_ORIGIN[0], _ORIGIN[1], re.sub(pattern, repl, line))
    return line


def session_tree(text: str) -> str:
    """The text of ``python -m miniagent session tree`` with its English words in Chinese."""
    return "\n".join(_apply(_TREE, line) for line in text.splitlines())


# miniagent's skills loader (miniagent/skills.py): why a SKILL.md was skipped
_SKILL_PROBLEMS = [
    ("does not start with a '---' front matter line", "文件开头不是 front matter 的 '---' 行"),
    ("the front matter has no closing '---' line", "front matter 没有结尾的 '---' 行"),
    ("the front matter is not valid YAML", "front matter 不是合法的 YAML"),
    ("the front matter is not a mapping of keys to values", "front matter 不是“键: 值”的映射"),
    ("the front matter needs a non-empty text", "front matter 缺一个非空的文本字段"),
    ("leads outside the skills folder", "指向技能目录之外"),
    ("is taken by", "名字和另一份技能重复"),
    ("is not a directory", "不是一个目录"),
]


def skill_problem(line: str) -> str:
    """One skipped SKILL.md as a Chinese sentence; the loader's own words stay in parentheses."""
    where, _, message = line.partition(": ")
    for english, chinese in _SKILL_PROBLEMS:
        if english in line:
            if not message:
                return f"{chinese}(加载器原话:{line})"
            return f"{where}:{chinese}(加载器原话:{message})"
    return f"{line}(加载器报告的问题)"
