"""Checker functions for lesson A6·2's exercises. Each returns a short Chinese verdict.

Every exercise asks for a prediction the page does not show: the answer is computed from the
recording (never stored) and printed only once the reader's answer is right. A checker never
raises on a wrong or missing answer: it says what to think about next, without the number.

    check_hit(rec, "refresh-day2", 1, guess)     # exercise 1: a request whose hit the text never shows
    check_second_refresh(rec, guess)             # exercise 2: a second write, refreshed at once
    check_layout(rec, breakpoints)               # exercise 3: the best Anthropic breakpoint placement
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

from miniagent.memory import MemoryStore
from miniagent.prompt import AGENTS_HEADER, SystemPrompt

from prefixlab.cache import calculator, counterfactual
from prefixlab.cache.attribution import split_system_prompt
from prefixlab.cache.rules import predict as rules_predict

from .tolerance import near
from prefixlab.presenting.answers import ASK, is_int
from prefixlab.presenting.labels import GROUP_LABELS
from ..figures.swimlane import session_lanes


def _row(recording, session: str, round_no: int, rule: str = "llamacpp", **config):
    rows = calculator.analyze(recording, rule, sessions=session, **config)
    for row in rows:
        if row.round == round_no:
            return row
    raise ValueError(f"{session} has no round {round_no}")


# -- where a llama-server hit came from ------------------------------------------------------------

def hit_source(recording, row) -> tuple[str, int] | None:
    """(session, round) of the earlier request whose cached prompt served ``row``'s hit (llamacpp rule).

    The server's cache is shared by every session of one server run (an epoch), so a new session's
    first request can read what another session left behind. None when nothing was read.
    """
    match = re.search(r"request (\d+)", row.matched_entry or "")
    if row.read == 0 or match is None:
        return None
    call = recording.calls[calculator.epochs(recording)[row.epoch][int(match.group(1))]]
    return call.session, call.round


def _source_text(recording, row) -> str:
    source = hit_source(recording, row)
    if source is None:
        return "这一轮什么也没从缓存读到。"
    session, round_no = source
    same = "同一个会话" if session == row.session else f"另一个会话 {session} "
    return (f"这 {row.read:,} 个 token 来自{same}第 {round_no} 轮留在服务器缓存里的 prompt:"
            f"同一台服务器上的所有会话共用一个前缀缓存。")


# -- exercise 1 -------------------------------------------------------------------------------------

def check_hit(recording, session: str, round_no: int, guess) -> str:
    """Exercise 1: how many prompt tokens does this request read from the server's cache?"""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(token 数)。"
    row = _row(recording, session, round_no)
    if near(guess, row.measured):
        where = f",前缀断在 {row.break_block}" if row.break_block else ""
        return (f"对:服务器报告 cached_tokens = {row.measured:,}(prompt 共 {row.prompt_tokens:,} 个 token{where}),"
                f"与计算器的预测一致。{_source_text(recording, row)}")
    hint = "多了" if guess > row.measured else "少了"
    return (f"还不对:你的答案{hint}。提示:这个请求的 prompt 有 {row.prompt_tokens:,} 个 token。服务器缓存里有这台服务器"
            "之前收到的所有请求;想想哪一个旧请求和它从开头起相同的部分最长,相同到哪一块为止。")


# -- exercise 2: a second write, refreshed at once --------------------------------------------------

SECOND_WRITE_ROUND = 8
SECOND_NOTE = "units/convert.py: the number pattern must accept a leading minus sign (negative temperatures)."
TOLERANCE = 1  # token: where the entry delimiter "\n§\n" splits is hard to guess by hand


def _with_note(system: str, note: str) -> str:
    """``system`` (a miniagent system prompt) with ``note`` added to its memory, by miniagent's own store."""
    blocks = dict(split_system_prompt(system) or [])
    if "memory_body" not in blocks:
        raise ValueError("this system prompt carries no memory block")
    with tempfile.TemporaryDirectory(prefix="prefixlab-ex-") as tmp:
        store = MemoryStore(Path(tmp) / "MEMORY.md")
        store.path.write_text(blocks["memory_body"] + "\n", encoding="utf-8")
        store.add(note)
        memory = store.text()
    agents = blocks["agents_md"][len(f"\n\n{AGENTS_HEADER}\n\n"):] if "agents_md" in blocks else ""
    return SystemPrompt(blocks["base"], agents, memory).text


def two_writes(recording, second_round: int = SECOND_WRITE_ROUND, note: str = SECOND_NOTE,
               history: str | None = None) -> list:
    """Rows (llamacpp rule, empty cache) of the history with a refresh after the recorded write *and*
    after a second write at ``second_round``. Only the system prompt changes; the conversation is
    the recorded one. Predicted, not measured: nobody recorded this variant."""
    replay = calculator.prepare(recording)
    rec = replay.recording
    history = counterfactual.history_session(rec, history)
    first_round = next(l.round for l in session_lanes(rec, history, []) if l.tool == "remember")
    if not first_round < second_round < len(counterfactual.history_calls(rec, history)):
        raise ValueError(f"the second write must come after round {first_round} and before the last round")
    once = counterfactual.note_system(rec, history)
    twice = _with_note(once, note)
    built = counterfactual.build(rec, first_round, history, system=once)
    for request in built:
        if request.round > second_round:
            request.messages[0] = {"role": "system", "content": twice}
    atts = [replay.attribute(r.messages, r.tools) for r in built]
    positions = [i for i, c in enumerate(rec.calls) if c.session == history]
    requests = calculator.make_requests(replay, positions, "llamacpp", dict(zip(positions, atts)))
    t0 = requests[0].t
    requests = [type(r)(r.tokens, r.generated, r.t - t0, "two-writes (built)", r.blocks) for r in requests]
    config = calculator.rule_config(rec, "llamacpp")
    return [calculator.make_row(rec.calls[i], att, p, "llamacpp")
            for i, att, p in zip(positions, atts, rules_predict("llamacpp", requests, **config))]


def check_second_refresh(recording, guess, second_round: int = SECOND_WRITE_ROUND, note: str = SECOND_NOTE) -> str:
    """Exercise 2: after a second write (refreshed at once), how many tokens does the next round read?"""
    if guess is None:
        return ASK
    if not is_int(guess):
        return "答案应该是一个整数(token 数)。"
    rows = two_writes(recording, second_round, note)
    row = next(r for r in rows if r.round == second_round + 1)
    first = next(r for r in rows if r.break_block == "memory_body")
    if abs(guess - row.read) <= TOLERANCE:
        exact = "正好" if guess == row.read else f"差 {abs(guess - row.read)} 个 token,算对"
        return (f"对({exact}):第 {row.round} 轮读取 {row.read:,} 个 token,比第一次刷新(第 {first.round} 轮,"
                f"{first.read:,} 个)多,因为新的记忆正文以第一条笔记开头,相同的前缀一直延伸到第一条笔记之后;"
                f"打断处仍在 {row.break_block} 里,其后的工具定义和全部历史照样重算:{row.fresh:,} 个 token。")
    if guess == first.read:
        return ("还不对:这是第一次刷新时的数字。第二次刷新前后,两个 system prompt 的记忆正文有什么相同、"
                "什么不同?")
    hint = "多了" if guess > row.read else "少了"
    return (f"还不对:你的答案{hint}。提示:打断处在哪一块?那一块里,刷新前后哪些字还一样?"
            "第一条笔记占多少 token,可以用 calculator.prepare(rec).attribute(...) 数。")


# -- exercise 3: the best Anthropic breakpoint ------------------------------------------------------

MAX_EXPLICIT = 3  # the API allows 4 breakpoints; automatic caching takes one
ALIASES = {"agents": "agents_md", "agents.md": "agents_md", "header": "memory_header", "memory header": "memory_header",
           "memory body": "memory_body", "body": "memory_body"}


def _refresh_round(recording, session: str) -> int | None:
    return next((l.round for l in session_lanes(recording, session, []) if l.refreshed), None)


def _api_requests(recording, session: str) -> dict[int, object]:
    replay = calculator.prepare(recording)
    positions = [i for i, c in enumerate(replay.recording.calls) if c.session == session]
    requests = calculator.make_requests(replay, positions, "anthropic")
    return {replay.recording.calls[i].round: r for i, r in zip(positions, requests)}


def _layout_facts(recording, session: str):
    """API-order block names of the refresh request, the blocks that changed, the best breakpoint."""
    from prefixlab.cache.rules.anthropic import api_blocks

    refresh = _refresh_round(recording, session)
    requests = _api_requests(recording, session)
    now, before = api_blocks(requests[refresh]), api_blocks(requests[refresh - 1])
    names = [b.block.name for b in now]
    first_changed = next(i for i, (a, b) in enumerate(zip(now, before)) if a.key != b.key)
    changed_here = now[first_changed].block.name  # the content that changed
    return refresh, tuple(names), changed_here, names[first_changed - 1] if first_changed else None


def normalize_breakpoints(breakpoints, names) -> list[str]:
    """The block names a reader writes, as the calculator knows them: ``tools`` / ``tool:*`` is the
    last tool (a breakpoint there caches every tool), ``system`` the last system block."""
    raw = [breakpoints] if isinstance(breakpoints, str) else list(breakpoints)
    tools = [n for n in names if n.startswith("tool:")]
    system = [n for n in names if n in ("base", "agents_md", "memory_header", "memory_body", "system")]
    out = []
    for item in raw:
        name = ALIASES.get(str(item).strip().lower(), str(item).strip())
        if name.lower() in ("tools", "tool:*", "tool", "tools[-1]"):
            name = tools[-1]
        elif name.lower() == "system":
            name = system[-1]
        out.append(name)
    return out


def check_layout(recording, breakpoints, model: str = "claude-opus-5", session: str = "refresh-day1") -> str:
    """Exercise 3: the explicit breakpoint(s) that read the most back on the refresh round (Anthropic)."""
    if breakpoints is None:
        return ASK
    from prefixlab.cache.rules.anthropic import CacheControlError, explicit

    if _refresh_round(recording, session) is None:
        return f"{session} 里没有刷新 system prompt 的那一轮:换一个{GROUP_LABELS['refresh']}的会话。"
    refresh, names, changed, best = _layout_facts(recording, session)
    try:
        chosen = normalize_breakpoints(breakpoints, names)
    except (TypeError, IndexError):
        return "答案应该是块名的列表,例如 [\"块名\"]。"
    unknown = [n for n in chosen if n not in names]
    if unknown:
        return (f"没有叫 {unknown[0]!r} 的块。这个请求的块(按 API 顺序):"
                + "、".join(n for n in names if not n.startswith(("user#", "assistant#", "tool#"))) + "、user#1、……")
    if len(chosen) > MAX_EXPLICIT:
        return (f"API 会拒绝这个请求:自动缓存占一个断点位置,显式断点最多再放 {MAX_EXPLICIT} 个,"
                f"你放了 {len(chosen)} 个。")
    try:
        rows = calculator.analyze(recording, "anthropic", sessions=session, model=model, breakpoints=explicit(*chosen))
    except (CacheControlError, ValueError) as err:
        return f"API 会拒绝这个请求:{err}"
    read = next(r for r in rows if r.round == refresh).read
    top = next(r for r in calculator.analyze(recording, "anthropic", sessions=session, model=model,
                                              breakpoints=explicit(best)) if r.round == refresh).read
    position = {n: i for i, n in enumerate(names)}
    on_change = [n for n in chosen if n == changed]
    after_change = [n for n in chosen if position[n] > position[changed]]
    if read >= top:
        extra = ""
        if on_change or after_change:
            extra = f"另外,{'、'.join(on_change + after_change)} 上的断点在刷新那一轮帮不上忙(它的哈希包含会变的内容)。"
        return (f"对:刷新那一轮(第 {refresh} 轮)读取 {read:,} 个 token——变了的 {changed} 之前的一切"
                f"(工具定义、基础 prompt、AGENTS.md、记忆标题)全部命中,这是能做到的最多。{extra}")
    if read == 0 and on_change:
        return (f"常见错误:断点放在了会变的内容上({on_change[0]})。刷新那一轮它的哈希包含新记忆,"
                "以前的请求从没在它前面的位置写过条目,回看找不到任何东西,只写不读。")
    if read == 0 and after_change:
        return (f"还不够:{after_change[0]} 在会变的 {changed} 之后,它的哈希包含旧记忆,刷新那一轮对不上;"
                "回看只找以前写下的条目,而那些条目也都包含旧记忆。断点得放在不变的内容上。")
    if read == 0:
        return "还不够:刷新那一轮什么也没读取。想想:自动缓存只在最后一块写条目,不变的部分需要一个自己的断点。"
    return (f"还不是最好:刷新那一轮读取 {read:,} 个 token,但在 {changed} 之前还有没变的内容要重算。"
            "把断点往后挪,挪到最后一个不变的块上。")
