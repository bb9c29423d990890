"""Checker functions for lesson A6·4's exercises. Each returns a short Chinese verdict.

As in ``a6_1``: every answer is computed from a recording (never stored here) and shown
only once the reader's answer is right; a wrong or missing answer gets a hint, never the number.

    check_lost(tree, session, guess)        # 1: entries a rewind-by-truncation deletes for one fork
    check_fork_hit(rec, session, guess)     # 2: the first request of a fork, cached_tokens
    check_switch_hit(data, setup, guess)    # 3: the first switch back to a branch, cached_tokens
    check_full_reuse(data, guess)           # 4: under which setups every switch reads its branch back whole
"""
from __future__ import annotations

from .tolerance import near
from prefixlab.presenting.answers import ASK, is_int, more_or_less
from ..figures.session_tree import SwitchRow, Tree, kind_of


# -- 1: what truncation deletes -------------------------------------------------------------------

def truncated(tree: Tree, session: str) -> list[dict]:
    """The entries a linear log would delete to rewind to ``session``'s fork point: everything on the
    trunk's path below that point (the trunk = the session that continued through it first)."""
    leaf = next(l for l in tree.leaves if l.session == session)
    if leaf.forked_at is None:
        raise ValueError(f"{session} is not a fork")
    trunk = next(l for l in tree.leaves if leaf.forked_at in l.path and l.forked_at is None)
    return [tree.entries[i] for i in trunk.path[trunk.path.index(leaf.forked_at) + 1:]]


def check_lost(tree: Tree, session: str, guess) -> str:
    """Exercise 1: rewind = truncate the file to the fork point. How many entries are gone?"""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(条目数)。"
    gone = truncated(tree, session)
    answer = len(gone)
    if guess == answer:
        kinds = [kind_of(e) for e in gone]
        calls = kinds.count("model_call")
        return (f"对:{answer} 个条目——{kinds.count('assistant')} 条 assistant 消息、{kinds.count('tool')} 条工具结果、"
                f"{calls} 次请求的原始记录。截断之后,原来那条路和它的 {calls} 次请求一起从文件里消失了;"
                "在树里,它们原样留着,分叉只是给分叉点添了一个孩子。")
    return (f"不对,{more_or_less(guess, answer)}。数一数主干上分叉点以下的条目:每一轮有一条 model_call(请求的原始记录)、"
            "一条 assistant 消息,调用了工具的轮还有一条工具结果;最后一轮只有回答。")


# -- 2: the fork's first request ------------------------------------------------------------------

def check_fork_hit(recording, session: str, guess) -> str:
    """Exercise 2: cached_tokens of a fork's first request, as the server measured it."""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(token 数)。"
    call = recording.session_calls(session)[0]
    answer = call.cached_tokens
    if near(guess, answer):
        return (f"对:服务器报告 cached_tokens = {answer:,}(prompt 共 {call.prompt_tokens:,} 个 token),"
                f"只有 {call.prompt_tokens - answer:,} 个要重算:分叉点之前的整段历史,和服务器槽位里主干最后一个请求"
                "从第一个 token 起逐个相同;从新的那条 user 消息起才不同。")
    return (f"不对,{more_or_less(guess, answer)}。分叉的请求 = 主干到分叉点为止的全部消息 + 一条新的 user 消息。"
            "服务器的槽位里是主干最后一个请求(它包含了分叉点之前的全部内容)。两者从第一个 token 起有多长一段相同?"
            "上面表里分叉点那一轮之后的请求 prompt 有多长,可以作参考。")


# -- 3 and 4: switching between two branches -----------------------------------------------------

def switch_backs(rows: list[SwitchRow]) -> list[tuple[SwitchRow, SwitchRow]]:
    """(request, the previous request of the same branch) for each request that returns to a branch
    after a request of another one."""
    out, last = [], {}
    for before, row in zip([None, *rows], rows):
        if before is not None and before.session != row.session and row.session in last:
            out.append((row, last[row.session]))
        last[row.session] = row
    return out


def reads_back_whole(rows: list[SwitchRow]) -> bool:
    """Every switch back reads at least the branch's previous prompt from the cache."""
    pairs = switch_backs(rows)
    return bool(pairs) and all((r.measured or 0) >= prev.prompt_tokens for r, prev in pairs)


def check_switch_hit(data: dict[str, list[SwitchRow]], setup: str, guess) -> str:
    """Exercise 3: under ``setup``, cached_tokens of the first request that switches back to a branch."""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(token 数)。"
    row, prev = switch_backs(data[setup])[0]
    if near(guess, row.measured):
        return (f"对:{row.measured:,} 个(prompt {row.prompt_tokens:,};这条分支上一个请求 {prev.prompt_tokens:,} 个 token)。"
                f"命中来自{row.source}:" + ("槽位里刚装着另一条分支,两条分支只共享分叉点之前的那一段。"
                                            if row.measured < prev.prompt_tokens else "这条分支上一次的内容还找得到。"))
    return (f"不对,{more_or_less(guess, row.measured)}。切回来之前,唯一的槽位刚处理完另一条分支的请求;"
            "没有主机缓存时,服务器能比较的只有槽位里现有的 token。两条分支从第一个 token 起有哪一段相同?")


def check_full_reuse(data: dict[str, list[SwitchRow]], guess) -> str:
    """Exercise 4: the setups under which every switch back reads the branch's previous prompt whole."""
    if guess is None:
        return ASK
    if isinstance(guess, str):
        guess = [guess]
    if not isinstance(guess, (list, tuple, set)) or not all(isinstance(g, str) for g in guess):
        return "答案应该是一个列表,每一项是上面的一种设置名,例如 [\"…\"]。"
    unknown = [g for g in guess if g not in data]
    if unknown:
        return f"没有叫 {unknown[0]!r} 的设置;可选的是:{'、'.join(data)}。"
    answer = {label for label, rows in data.items() if reads_back_whole(rows)}
    if set(guess) == answer:
        return (f"对:{'、'.join(l for l in data if l in answer) or '一种也没有'}。"
                "要把一条分支整段读取,服务器得在某处还留着它:要么有第二个槽位一直装着它(槽位按相似度挑),"
                "要么换出去时先存进主机内存的缓存、切回来时再装回槽位。")
    return ("不对。对每一种设置想一想:切到另一条分支时,这条分支的 token 去了哪里——被覆盖了,留在另一个槽位里,"
            "还是存进了主机内存?切回来时服务器会去那里找吗?")
