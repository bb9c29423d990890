"""Checker functions for the chapter's exercises. Each returns a short Chinese verdict.

A checker never raises on a wrong or missing answer: it says what to try next.
The right answers are computed from the recording, never stored.
"""
from __future__ import annotations

from prefixlab.cache import calculator, counterfactual

from .labels import GROUP_LABELS
from .swimlane import session_lanes

ASK = "先把你的答案填进上面的变量,再运行这个单元格。"


def _row(recording, session: str, round_no: int, rule: str = "llamacpp", **config):
    rows = calculator.analyze(recording, rule, sessions=session, **config)
    for row in rows:
        if row.round == round_no:
            return row
    raise ValueError(f"{session} has no round {round_no}")


def check_hit(recording, session: str, round_no: int, guess) -> str:
    """Exercise 1: how many prompt tokens does this round read from the cache?"""
    if guess is None:
        return ASK
    if not isinstance(guess, int) or isinstance(guess, bool):
        return "答案应该是一个整数(token 数)。"
    row = _row(recording, session, round_no)
    if guess == row.measured:
        return f"对:服务器报告 cached_tokens = {row.measured},与计算器的预测一致。"
    hint = "多了" if guess > row.measured else "少了"
    return (f"还不对:你的答案{hint}。提示:这一轮的 prompt 有 {row.prompt_tokens} 个 token;"
            "想想它和上一轮的请求从第几个 token 开始不同。")


def check_break(recording, k: int, round_no: int, guess) -> str:
    """Exercise 2: in the counterfactual "refresh after round k", in which block does the prefix break?"""
    if guess is None:
        return ASK
    rows = counterfactual.predict(recording, k, "llamacpp")
    row = next(r for r in rows if r.round == round_no)
    if row.break_block is None:
        return f"这一轮没有断点:整段前缀都命中了(读 {row.read} 个 token)。"
    if str(guess).strip() == row.break_block:
        return f"对:前缀断在 {row.break_block},断点前是 …{row.before_break!r},断点后是 {row.after_break!r}…"
    return f"还不对。块名是 base、agents_md、memory_header、memory_body、tools、user#1 这样的名字;再看看 k={k} 时第 {round_no} 轮改了什么。"


def check_layout(recording, breakpoints, model: str = "claude-opus-5", session: str = "refresh-day1") -> str:
    """Exercise 3: place Anthropic breakpoints so the refresh round still reads the tool definitions."""
    if breakpoints is None:
        return ASK
    from prefixlab.cache.rules.anthropic import CacheControlError, explicit

    try:
        names = [breakpoints] if isinstance(breakpoints, str) else list(breakpoints)
        rows = calculator.analyze(recording, "anthropic", sessions=session, model=model, breakpoints=explicit(*names))
    except (CacheControlError, ValueError) as err:
        return f"API 会拒绝这个请求:{err}"
    refresh_round = next((l.round for l in session_lanes(recording, session, []) if l.refreshed), None)
    if refresh_round is None:
        return f"{session} 里没有刷新 system prompt 的那一轮:换一个{GROUP_LABELS['refresh']}的会话。"
    refresh = next(r for r in rows if r.round == refresh_round)
    tools_end = _tools_end(recording, session, refresh.round)
    if refresh.read >= tools_end:
        return (f"对:刷新那一轮(第 {refresh.round} 轮)仍从缓存读回 {refresh.read} 个 token,"
                f"工具定义({tools_end} 个 token,按 API 顺序排在最前)全部命中。")
    return (f"还不够:刷新那一轮只读回 {refresh.read} 个 token,工具定义要 {tools_end} 个。"
            "想想:自动缓存只在最后一块写条目,稳定的部分需要一个自己的断点。")


def _tools_end(recording, session: str, round_no: int) -> int:
    """Tokens of the tool definitions in API order (they come first there)."""
    replay = calculator.prepare(recording)
    i = next(i for i, c in enumerate(replay.recording.calls) if c.session == session and c.round == round_no)
    return sum(b.end - b.start for b in replay.attributions[i].rule_blocks(api=True) if b.kind == "tools")
