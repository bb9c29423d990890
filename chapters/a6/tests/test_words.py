"""One word per idea on chapter A6's pages, as `book/glossary.md` fixes them.

Scanned: the markdown of every A6 lesson, the chapter page and the A6 labs, and the string literals of the
chapter's figures, labs and checkers (their labels and hovers are page text too). Each rule says why.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from prefixlab.paths import REPO_ROOT

PAGES = sorted((REPO_ROOT / "book" / "a6").glob("*.ipynb")) + sorted((REPO_ROOT / "labs" / "a6").glob("*.ipynb"))
CODE = [p for d in ("figures", "lab", "exercises") for p in sorted((REPO_ROOT / "chapters" / "a6" / d).glob("*.py"))]

# (pattern, why): a variant the glossary does not use, anywhere on the page.
FORBIDDEN = [
    (r"枝", "a branch of the session tree is 分支 (一条分支), never 枝"),
    (r"发话", "what the user sends is a 用户消息"),
    (r"(?<!白)白带", "say 白白带着"),
    (r"(stable|volatile) ?层", "the prompt's layers are 稳定层 / 易变层 (the setting values stay in backticks)"),
    (r"实测命中", "the glossary: 命中 means something was read; the number is 读取 (实测读取)"),
    (r"命中\s*(\{glue|\{|\d)", "a count of cached tokens is 读取 N 个, not 命中 N 个"),
]
# 断点 is the glossary's 缓存断点: Anthropic's `cache_control` marker (or OpenAI's explicit one). A place
# where a prefix stops matching is an 打断处. An occurrence is fine when the word itself says so (缓存断点,
# 显式断点) or its paragraph is about those markers.
BREAKPOINT_CONTEXT = re.compile(r"cache_control|缓存断点|显式断点|Anthropic|自动缓存|OpenAI")
# English allowed in a heading: names of things, and the book's own terms (glossary: system prompt, token, agent).
HEADING_WORDS = {"A6", "R", "RAG", "AGENTS.md", "API", "Anthropic", "BM25", "Claude", "Hermes", "miniagent",
                 "s09", "T10", "T11", "T12", "T13", "T14", "system", "prompt", "token", "agent"}


def _markdown(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"]


def _literals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _texts():
    for page in PAGES:
        for text in _markdown(page):
            yield page.relative_to(REPO_ROOT), text
    for module in CODE:
        for text in _literals(module):
            yield module.relative_to(REPO_ROOT), text


@pytest.mark.parametrize("pattern,why", FORBIDDEN, ids=[p for p, _ in FORBIDDEN])
def test_no_forbidden_variant(pattern, why):
    found = [f"{where}: …{m.string[max(0, m.start() - 20):m.end() + 20]}…"
             for where, text in _texts() for m in re.finditer(pattern, text)]
    assert not found, f"{why}:\n" + "\n".join(found)


def _functions(path: Path) -> list[str]:
    """A module's top-level functions and classes, source and all: a label's context is its function."""
    source = path.read_text()
    return [ast.get_source_segment(source, n) or "" for n in ast.parse(source).body]


def test_breakpoint_means_a_cache_breakpoint():
    found = []
    units = [(page.relative_to(REPO_ROOT), para) for page in PAGES for text in _markdown(page)
             for para in re.split(r"\n\s*\n", text)]
    units += [(module.relative_to(REPO_ROOT), f) for module in CODE for f in _functions(module)]
    for where, para in units:
        if "断点" in para and not BREAKPOINT_CONTEXT.search(para):
            found.append(f"{where}: {para[:120]}")
    assert not found, "断点 outside a cache_control context; where a prefix breaks is 打断处:\n" + "\n".join(found)


def test_headings_are_chinese():
    found = []
    for page in PAGES:
        for text in _markdown(page):
            for line in text.splitlines():
                m = re.match(r"^#+ (.*)|^:{3,}\{(?:dropdown|admonition)\} ?(.*)", line)
                if not m:
                    continue
                title = re.sub(r"`[^`]*`|\[[^\]]*\]\([^)]*\)", "", m.group(1) or m.group(2) or "")
                words = set(re.findall(r"[A-Za-z][A-Za-z0-9_.\-]*", title)) - HEADING_WORDS
                if words:
                    found.append(f"{page.name}: {line} ({', '.join(sorted(words))})")
    assert not found, "English left in a heading:\n" + "\n".join(found)


def test_the_rules_catch_what_they_name():
    assert re.search(FORBIDDEN[0][0], "另一根枝") and re.search(FORBIDDEN[5][0], "命中 {glue:text}`x` 个")
    assert not re.search(FORBIDDEN[5][0], "命中来自哪个请求")
    assert BREAKPOINT_CONTEXT.search("`cache_control` 断点") and not BREAKPOINT_CONTEXT.search("前缀的断点")
