"""The lab "你自己的账单" (labs/a8/your-bill.ipynb): the bill of a shipped recording or of your own
session file, a figure of it, and the lab's two checkers.

    b = load(path)                         # prefixlab.presenting.bill.bill, with a clear error on bad input
    print(bill.render(b, requests=False))  # the command's text
    figure(b)                              # per session: computed and read input tokens
    check_requests(path, guess)            # exercise 1: how many requests the server answered
    check_context_calls(path, guess)       # exercise 2: how many of them a tally of the context sees
"""
from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go

from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill
from prefixlab.presenting.answers import ASK, is_int, more_or_less
from prefixlab.recording.format import load as load_recording

DEFAULT = RECORDINGS / "t13-forks-smollm2-llamacpp"   # a tree with nine forks and server replays
MAIN_SESSION = "day1"


def load(path) -> bill.Bill:
    """The bill of ``path`` (a session file or a recording directory)."""
    return bill.bill(Path(path))


def figure(b: bill.Bill) -> go.Figure:
    sessions = b.by_session()
    names = list(sessions)
    fig = go.Figure()
    fig.add_bar(y=names, x=[u.input for u in sessions.values()], name="重算", orientation="h", marker_color="#d1495b",
                hovertemplate="%{y}<br>重算 %{x:,}<extra></extra>")
    fig.add_bar(y=names, x=[u.cache_read for u in sessions.values()], name="从缓存读取", orientation="h",
                marker_color="#4c9f70", hovertemplate="%{y}<br>读取 %{x:,}<extra></extra>")
    fig.update_layout(barmode="stack", height=160 + 28 * len(names), margin=dict(t=30, b=40, l=10),
                      xaxis=dict(title="输入 token"), yaxis=dict(autorange="reversed"),
                      legend=dict(orientation="h", y=1.1, x=0))
    return fig


def main_session(path: Path) -> tuple[Path, str | None]:
    """The session file and leaf a context tally stands on: a recording's MAIN_SESSION, or the file itself."""
    path = Path(path)
    if path.is_dir():
        info = load_recording(path).session_info(MAIN_SESSION)
        return path / info["file"], info["leaf"]
    return path, None


def check_requests(path, guess) -> str:
    if not is_int(guess):
        return ASK
    answer = load(path).total.calls
    if guess != answer:
        return f"不对,{more_or_less(guess, answer)}。数的是服务器回答过的每一个请求,每个会话、每个分支、每个子会话都算。"
    return f"对:{answer:,} 个请求,账单一个不漏。"


def check_context_calls(path, guess) -> str:
    if not is_int(guess):
        return ASK
    file, leaf = main_session(path)
    answer = bill.context_vs_ledger(file, leaf)["context"].calls
    if guess != answer:
        return (f"不对,{more_or_less(guess, answer)}。站在叶子上,上下文里只有这条路径上、回答还没被摘要顶替的请求;"
                "别的分支、摘要请求、子会话都不算。")
    return f"对:{answer:,} 个。账单里的其余请求,按当前上下文加的统计一个也看不到。"
