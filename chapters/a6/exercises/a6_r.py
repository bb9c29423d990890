"""Checker functions for side lesson A6·R's exercises. Each returns a short Chinese verdict.

As in ``a6_2`` (A6·2) and ``a6_1`` (A6·1): every answer is computed from the T14
recording or from the recall set with miniagent's own retriever (never stored), and shown only
once the reader's answer is right; a wrong or missing answer gets a hint, never the answer.

    check_turn_hit(rec, "select", guess)       # 1, 2: cached tokens of a strategy's first request of user turn 2
    check_never_complete(ids)                  # 3: the requests BM25 never serves with every note they need
"""
from __future__ import annotations

from prefixlab.cache import calculator

from .tolerance import near
from prefixlab.presenting.answers import ASK, is_int, more_or_less
from ..figures import recall
from ..figures.strategies import turn_of

TURN = 2  # exercises 1 and 2 ask about the first request of the user's second request


def turn_start(recording, session: str, turn: int = TURN):
    """(call, row): the first request of user request ``turn`` in ``session``, under the server's rule."""
    call = next(c for c in recording.session_calls(session) if turn_of(c) == turn)
    row = next(r for r in calculator.analyze(recording, sessions=session) if r.seq == call.seq)
    return call, row


HINTS = {
    "select": ("想想第 2 条用户消息时,挑中的记忆变没变;变了,system prompt 从哪一块开始不同?服务器只复用从第一个 token 起"
               "相同的前缀,那之前有哪几块?(工具定义排在 system 文本之后。)"),
    "retrieve": ("system prompt 这一组从来不变。第 2 条用户消息时,上一条 user 消息发生了什么变化?前缀断在那条消息的哪里?"
                 "它之前的内容都还在服务器的缓存里。"),
}


def check_turn_hit(recording, strategy: str, guess, session: str | None = None) -> str:
    """Exercises 1 and 2: the server's cached_tokens on the first request of user turn 2."""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(token 数)。"
    call, row = turn_start(recording, session or strategy)
    if near(guess, row.measured):
        return (f"对:服务器报告 cached_tokens = {row.measured:,}(prompt 共 {row.prompt_tokens:,} 个 token,"
                f"重算 {row.prompt_tokens - row.measured:,} 个),计算器推算的也是 {row.read:,}。"
                f"前缀断在 {row.break_block}:{_why(strategy, row)}")
    return f"不对,{more_or_less(guess, row.measured)}。{HINTS.get(strategy, '')}"


def _why(strategy: str, row) -> str:
    if strategy == "select":
        return ("这次挑中的记忆和上一次不同,system prompt 的记忆正文一变,排在它后面的工具定义和全部对话都得重算;"
                "读取的只有模板开头、基础 prompt、AGENTS.md 和记忆标题。")
    if strategy == "retrieve":
        return ("上一条 user 消息这次不再带着召回的记忆,它自己的文字之后就不一样了;"
                "它之前的 system prompt、工具定义和更早的对话都读取了,之后的全部重算。")
    return "system prompt 没有变,上一个请求几乎整段读取。"


def never_complete(path=recall.RECALL_SET) -> list[str]:
    """Ids of the recall set's requests that no k serves with every note they need (BM25 over all notes)."""
    notes, tasks = recall.load_recall_set(path)
    out = []
    for task in tasks:
        carried, _ = recall.carried("retrieve", notes, task.text, len(notes))
        if not all(n in carried for n in task.needs):
            out.append(task.id)
    return out


def check_never_complete(ids, path=recall.RECALL_SET) -> str:
    """Exercise 3: which requests never carry all the notes they need, whatever k is."""
    if ids is None:
        return ASK
    if isinstance(ids, str) or not all(isinstance(i, str) for i in ids):
        return "答案应该是一个列表,每一项是请求的 id,例如 \"run-checks\"。"
    notes, tasks = recall.load_recall_set(path)
    known = {t.id for t in tasks}
    if unknown := [i for i in ids if i not in known]:
        return f"没有叫 {unknown[0]!r} 的请求;id 见上面的表。"
    answer = never_complete(path)
    if set(ids) == set(answer):
        why = []
        for task in (t for t in tasks if t.id in answer):
            carried, _ = recall.carried("retrieve", notes, task.text, len(notes))
            missing = [n for n in task.needs if n not in carried]
            why.append(f"{task.id}(缺 {'、'.join(missing)})")
        return ("对:" + ";".join(why) + "。BM25 只认共同的词(词干相同也算):请求的说法和笔记不同、换了语言,"
                "或者需要的是请求里根本没提到的事(比如发布前要做什么),k 再大也找不到。")
    missed, extra = set(answer) - set(ids), set(ids) - set(answer)
    parts = []
    if missed:
        parts.append(f"漏了 {len(missed)} 个")
    if extra:
        parts.append(f"多选了 {len(extra)} 个(它们在某个 k 下能把需要的笔记全带上)")
    return ("不对:" + "、".join(parts) + "。对每个请求,拿它的词去和它需要的每条笔记比一比:有没有哪条笔记和请求一个共同的词"
            "都没有?英文的词会去掉常见虚词、还原词干再比。")
