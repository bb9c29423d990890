"""record-your-own's long cells (labs/record-your-own.ipynb): nothing runs until the learner picks a server.

"Run All" executes every cell, so each cell that starts a server or records asks ``wants(SERVER, ...)``
first: with ``SERVER = None`` (the default at the top of the notebook) it prints why it did nothing and
what to change. ``new_out`` gives every run a new timestamped directory, so a second run never trips
over the first one's recording.

    SERVER = "course"                                      # the course's llama-server
    SERVER = {"url": "http://127.0.0.1:8080/v1", "model": "...", "tokenizer": "...", "template": "..."}
"""
from __future__ import annotations

import time

from prefixlab.paths import REPO_ROOT

from .widgets import run_module

COURSE = "course"
OWN_KEYS = ("url", "model", "tokenizer", "template")
ASK = ("这一步在你自己的机器上运行,现在什么也没做:最上面的 SERVER 还是 None。"
       "想用课程的 llama-server,把它改成 SERVER = \"course\";用你自己的服务器,见最后一节。改好后再运行这个单元格。")


def server_problem(server) -> str | None:
    """Why ``server`` is not a usable choice, in Chinese; None when it is one."""
    if server is None:
        return ASK
    if server == COURSE:
        return None
    if not isinstance(server, dict):
        return f"SERVER 只能是 None、\"course\" 或一个 dict(见最后一节),现在是 {server!r}"
    missing = [key for key in OWN_KEYS if not server.get(key)]
    if missing:
        return f"SERVER 里缺少:{'、'.join(missing)}(要有 {'、'.join(OWN_KEYS)} 四项)"
    absent = [server[key] for key in ("tokenizer", "template") if not (REPO_ROOT / server[key]).is_file()]
    if absent:
        return f"找不到这些文件(相对仓库根目录):{'、'.join(absent)};先把它们放进 data/tokenizers/ 和 data/templates/"
    return None


def wants(server, step: str, cost: str, course_only: bool = False) -> bool:
    """Whether this cell should run; if not, print (stdout, in Chinese) why and what to do."""
    problem = server_problem(server)
    if problem:
        print(f"「{step}」没有运行。{problem}")
        return False
    if course_only and server != COURSE:
        print(f"「{step}」只用于课程的 llama-server;你选了自己的服务器,跳过这一步。")
        return False
    print(f"「{step}」开始,预计 {cost}。服务器的进度会一行行显示在下面。", flush=True)
    return True


def new_out(experiment: str, root: str = "data/recordings") -> str:
    """A recording directory that does not exist yet, relative to the repo root: my-NAME-YYYYmmdd-HHMMSS."""
    base = f"{root}/my-{experiment}-{time.strftime('%Y%m%d-%H%M%S')}"
    out, n = base, 2
    while (REPO_ROOT / out).exists():
        out, n = f"{base}-{n}", n + 1
    return out


def record_args(server, quick: bool) -> list[str]:
    """The options of ``python -m prefixlab record NAME OUT`` for this server choice."""
    args = []
    if isinstance(server, dict):
        args += ["--server-url", server["url"], "--model", server["model"],
                 "--tokenizer", server["tokenizer"], "--template", server["template"]]
    if quick:
        args.append("--no-counterfactuals")
    return args


def record(experiment: str, out: str, server, quick: bool = True) -> int | None:
    """Record ``experiment`` into ``out`` with ``python -m prefixlab record``; None if ``out`` exists."""
    if (REPO_ROOT / out).exists():
        print(f"{out} 已经存在:录制从不覆盖已有的目录。重新运行这个单元格会取一个新的带时间戳的目录名;"
              "不要的旧录制可以直接删掉。")
        return None
    code = run_module("prefixlab", "record", experiment, out, *record_args(server, quick))
    if code == 0:
        print(f"录制完成:{out}")
    else:
        print(f"录制没有完成(退出码 {code}):原因见上面的输出。")
    return code


def recorded(out: str | None) -> bool:
    """Whether ``out`` holds a recording; if not, say so (the cells after the recording use it)."""
    if out and (REPO_ROOT / out / "manifest.json").is_file():
        return True
    print("还没有可用的录制:先在第二步录一份(SERVER 选好之后运行它),这个单元格再运行一次。")
    return False
