"""Checker functions for lesson A6·1's exercises. Each returns a short Chinese verdict.

As in ``a6_2`` (lesson A6·2): every answer is computed from the T11 recording or from
miniagent's own loader run on the fixture tree (never stored), and shown only once the reader's
answer is right; a wrong or missing answer gets a hint, never the number.

    check_compaction_hit(rec, guess)          # 1: the first request after a compaction, rule in AGENTS.md
    check_edit_hit(rec, guess)                # 2: the request right after a mid-session AGENTS.md edit
    check_loaded(explorer, cwd, files)        # 3: which AGENTS.md files load from a directory, in order
    check_cut(explorer, cwd, cap, guess)      # 4: how many bytes a cap cuts
"""
from __future__ import annotations

from prefixlab.cache import calculator

from .tolerance import near
from prefixlab.presenting.answers import ASK, is_int, more_or_less
from ..figures.agents_md_explorer import Explorer


def _after_compaction(recording, session: str):
    calls = recording.session_calls(session)
    i = next(i for i, c in enumerate(calls) if c.kind == "compaction")
    call = next(c for c in calls[i + 1:] if c.kind == "model_call")
    row = next(r for r in calculator.analyze(recording, sessions=session) if r.seq == call.seq)
    return call, row


def check_compaction_hit(recording, guess, session: str = "agents-day1") -> str:
    """Exercise 1: cached tokens of the first request after the compaction (rule in AGENTS.md)."""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(token 数)。"
    call, row = _after_compaction(recording, session)
    att = calculator.prepare(recording).attributions[call.seq]
    if near(guess, row.measured):
        return (f"对:服务器报告 cached_tokens = {row.measured:,}(prompt 共 {row.prompt_tokens:,} 个 token),"
                f"与计算器一致。读取的是 system prompt(带着规矩的 AGENTS.md 块 {len(att.block('agents_md')):,} 个 token)"
                f"和工具定义,前缀断在 {row.break_block}:压缩摘要是一条新的 user 消息,从它开始都得重算。")
    hint = ("想想压缩前后的两个请求从第一个 token 起有哪一段逐字相同:system prompt 变了吗?工具定义呢?"
            "第一条 user 消息呢?规矩写在消息里的那个会话,同一位置的数字就在上面的表里,两者差的正是哪一块?")
    return f"不对,{more_or_less(guess, row.measured)}。{hint}"


def check_loaded(explorer: Explorer, cwd: str, files) -> str:
    """Exercise 3: the AGENTS.md files miniagent loads from ``cwd``, in load order."""
    if files is None:
        return ASK
    if isinstance(files, str) or not all(isinstance(f, str) for f in files):
        return "答案应该是一个列表,每一项是从仓库根开始的路径,例如 \"AGENTS.md\"。"
    row = next(r for r in explorer.rows if r.cwd == cwd)
    answer = [s.path for s in row.segments]
    if list(files) == answer:
        return (f"对:{' → '.join(answer)}。从仓库根到工作目录,每一级有 AGENTS.md 就读,根在前、离工作目录最近的在最后;"
                "不在这条路上的(兄弟目录、子目录)一个都不读。")
    if sorted(files) == sorted(answer):
        return "文件对了,顺序不对:miniagent 按从哪一头到哪一头的顺序拼接?离工作目录最近的规矩放在哪里?"
    missing = [f for f in answer if f not in files]
    extra = [f for f in files if f not in answer]
    hint = []
    if missing:
        hint.append(f"少了 {len(missing)} 个")
    if extra:
        hint.append(f"多了 {len(extra)} 个不会加载的")
    return "不对:" + "、".join(hint) + "。从工作目录往上走到有 .git 的目录,沿途每一级都看一眼。"


def check_cut(explorer: Explorer, cwd: str, cap: int, guess) -> str:
    """Exercise 4: bytes of the AGENTS.md text that a cap of ``cap`` bytes cuts, from ``cwd``."""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(字节数)。"
    row = next(r for r in explorer.rows if r.cwd == cwd)
    answer = row.cut(cap)
    if guess == answer:
        cut = [s.path for s in row.segments if s.kept(cap) < s.end - s.start]
        return (f"对:拼好的文本共 {row.total:,} 字节,上限 {cap:,},截掉 {answer:,} 字节(落在 {'、'.join(cut)})。"
                f"截断处换成一行 {row.marker[cap]:,} 字节的标记,模型看得见规矩被截了。")
    return (f"不对,{more_or_less(guess, answer)}。上面的目录树给了每个文件的字节数;别忘了文件不止一个时,"
            "每个文件前面还有一行标出路径的标签,以及文件之间的空行,它们也算在上限里。")


def check_edit_hit(recording, guess, session: str = "edit-reload-day1") -> str:
    """Exercise 2: cached tokens of the first request whose system prompt carries the edited AGENTS.md."""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(token 数)。"
    calls = recording.session_calls(session)
    call = next(b for a, b in zip(calls, calls[1:]) if b.request["messages"][0] != a.request["messages"][0])
    row = next(r for r in calculator.analyze(recording, sessions=session) if r.seq == call.seq)
    if near(guess, row.measured):
        return (f"对:只读取 {row.measured:,} 个 token,其余 {row.prompt_tokens - row.measured:,} 个重算;前缀断在 "
                f"{row.break_block}:新加的那一行之前,AGENTS.md 的旧内容还能读取;从那一行起,后面的记忆、工具定义和"
                "全部对话都得重算。")
    return (f"不对,{more_or_less(guess, row.measured)}。新加的那一行在 AGENTS.md 的末尾;"
            "但服务器比较的是整个 token 序列,AGENTS.md 块的结尾变了,会不会牵连它后面的块?它前面还剩哪几块?")
