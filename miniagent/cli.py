"""``python -m miniagent``: run one task in a workspace against a chat server."""
from __future__ import annotations

import argparse
import atexit
import hashlib
import math
import sys
import time
from pathlib import Path

from .agents_md import over_the_cap, read_agents_md
from .approval import POLICIES, Approval, describe, terminal_human
from .call_retry import run_with_retry
from .constrained import ConstrainedModel
from .loop_guard import GuardedLimits, LoopGuard
from .children import ChildLimits, add_children
from .compaction import KEEP_ROUNDS, Compactor, model_summariser
from .confined import ConfinedWorkspace
from .data_marking import MarkedToolbox, with_data_rule
from .edit_guard import with_edit_guard
from .loop import Limits, run_task
from .masking import ToolResultMasking
from .mcp_tools import add_mcp
from .memory import MEMORY_CHAR_LIMIT, MemoryFileError, MemoryStore
from .model import ChatModel, ModelError, url_problem
from .modes import MODES, for_mode
from .paging import with_paging
from .prompt import BASE_PROMPT
from .sandbox import SANDBOXES, Bwrap
from .session import Session, SessionFileError
from .session_cli import ContinuedSession, shipped_data_problem
from .skills import SKILLS_AT, SkillSet
from .text_calls import TextCalls
from .tools import COMMAND_TIMEOUT, Toolbox, ToolError

HOME = Path.home() / ".miniagent"
REQUEST_TIMEOUT = 300.0  # seconds: a long prompt on a small CPU-only machine can take minutes


def default_memory_path(workspace: Path) -> Path:
    # One MEMORY.md per repository, kept outside it (the repo is not the agent's notebook).
    key = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:8]
    return HOME / "memory" / f"{workspace.resolve().name}-{key}" / "MEMORY.md"


def positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return seconds


# Every option that is a number or an address is checked here, once, as argparse reads it: a bad
# value is one line (argparse's "error: argument --X: ...", exit 2), and the code after trusts it.
def whole(minimum: int, unit: str = ""):
    """An option type: a whole number of ``unit``, ``minimum`` or more."""
    def parse(text: str) -> int:
        value = int(text) if text.strip().lstrip("+-").isdigit() else None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"must be a whole number{' of ' + unit if unit else ''}, "
                                             f"{minimum} or more, not {text!r}")
        return value
    parse.__name__ = f"whole number >= {minimum}"
    return parse


child_rounds = whole(1, "rounds")  # --children
retry_count = whole(0)


def server_url(text: str) -> str:
    if problem := url_problem(text):
        raise argparse.ArgumentTypeError(problem.removeprefix("the server URL "))
    return text


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m miniagent", description=(
        "Run one coding task with miniagent in WORKSPACE against an OpenAI-compatible server "
        "(llama-server, mlx_lm.server, Ollama, vLLM, ...)."))
    p.add_argument("task", help="what the agent should do (use @FILE to read the task from a file)")
    p.add_argument("-w", "--workspace", type=Path, default=Path("."), help="repository to work in (default: .)")
    p.add_argument("--server", type=server_url, default="http://127.0.0.1:8080/v1",
                   help="base URL of the chat API (default: %(default)s)")
    p.add_argument("--model", default="local", help="model name sent to the server (default: %(default)s)")
    p.add_argument("--text-calls", action="store_true",
                   help="also run tool calls the model writes as text in its answer (small local models)")
    p.add_argument("--call-retries", type=retry_count, default=0, metavar="N",
                   help="when an answer tried to call a tool but the call could not be read, send a "
                        "correction and go on, at most N times (call_retry.py; default: %(default)s, off)")
    p.add_argument("--mode", choices=MODES, default="frozen",
                   help="where the requests carry the memory, and when a note written this session gets "
                        "there (default: %(default)s; see miniagent/injection.py and, for the lessons' variants, miniagent/variants/)")
    p.add_argument("--memory", type=Path, help="MEMORY.md path (default: under ~/.miniagent/memory/)")
    p.add_argument("--memory-limit", type=whole(1, "characters"), default=MEMORY_CHAR_LIMIT, help="memory size limit in characters")
    p.add_argument("--session", type=Path, help="session JSONL file (default: a new file under ~/.miniagent/sessions/)")
    p.add_argument("--fork", metavar="ENTRY_ID", help="continue the session from this earlier entry")
    p.add_argument("--skills", type=Path, metavar="DIR",
                   help="folder of skills (DIR/<name>/SKILL.md): their index goes into the system prompt, "
                        "the model reads one with the read_skill tool")
    p.add_argument("--skills-index", choices=SKILLS_AT, default="stable",
                   help="where the skills index sits: right after the base prompt (stable) or after "
                        "AGENTS.md, before the memory (volatile) (default: %(default)s)")
    p.add_argument("--max-rounds", type=whole(1, "rounds"), default=20)
    p.add_argument("--children", type=child_rounds, metavar="ROUNDS",
                   help="give the agent the spawn_agent tool: a child agent with its own context and session "
                        "file (next to this session's), at most ROUNDS rounds, no grandchildren (chapter A7; "
                        "default: no such tool)")
    p.add_argument("--compact-at", type=whole(1, "tokens"), metavar="TOKENS",
                   help="before a call whose estimated size is over TOKENS, replace all but the last "
                        f"{KEEP_ROUNDS} rounds with a summary written by the model (default: never)")
    p.add_argument("--max-tokens", type=whole(1, "tokens"), default=512, help="completion limit per model call")
    p.add_argument("--budget", type=whole(1, "tokens"), metavar="TOKENS",
                   help="token budget of the whole task: stop before the next call once the calls so far used "
                        "TOKENS (prompt + completion, as the server reports them) (default: no budget)")
    p.add_argument("--timeout", type=positive_seconds, default=COMMAND_TIMEOUT, help="run_command timeout in seconds")
    p.add_argument("--approval", choices=POLICIES, default="ask",
                   help="a call that changes something (write_file, edit_file, run_command): ask = ask at the "
                        "terminal unless an --allow rule covers it (with no terminal to ask on, the answer is no), "
                        "auto = run it, never = refuse it; reading always runs (A3·2, approval.py) "
                        "(default: %(default)s)")
    p.add_argument("--allow", action="append", default=[], metavar="RULE",
                   help="under --approval ask, run without asking: a tool name (edit_file) or a tool and a "
                        "command prefix ('run_command: python -m pytest'); a command with a shell operator is "
                        "never covered by a prefix (repeat the option for more rules)")
    p.add_argument("--paging", action="store_true",
                   help="read_file and run_command return a page at a time; a long command output is saved in "
                        "the workspace's .outputs/ to page through (A2·3, paging.py) (default: off)")
    p.add_argument("--edit-guard", action="store_true",
                   help="edit_file and write_file refuse a file the model has not read as it is now (A2·3, "
                        "edit_guard.py) (default: off)")
    p.add_argument("--mask", type=child_rounds, metavar="ROUNDS",
                   help="before each call, cut the tool results older than the last ROUNDS rounds to their first "
                        "line; the session file keeps them whole (A5·2, masking.py) (default: off)")
    p.add_argument("--sandbox", choices=SANDBOXES,
                   help="run every command inside a sandbox: bwrap = bubblewrap (Linux; workspace writable, rest "
                        "read-only, no network, fresh /proc, cleared environment; sandbox.py) (default: none)")
    p.add_argument("--mark-data", action="store_true",
                   help="mark every tool result as data (<tool_output> tags, a rule in the system prompt; data_marking.py)")
    p.add_argument("--request-timeout", type=positive_seconds, default=REQUEST_TIMEOUT, metavar="SECONDS",
                   help="how long to wait for the model server's answer to one request; a request that "
                        "times out is not sent again (default: %(default)s)")
    # opt-in (A2): a schema-constrained reply, and a guard against loops (constrained.py, loop_guard.py)
    p.add_argument("--constrained", action="store_true",
                   help="ask the server to sample only a call of a tool or a final answer (a JSON schema)")
    p.add_argument("--loop-guard", type=retry_count, default=0, metavar="N",
                   help="answer a call repeated just after itself, stop after N calls in a row that add "
                        "nothing new (default: %(default)s, off)")
    p.add_argument("--retries", type=retry_count, default=3,
                   help="tries after a connection error or a busy server (HTTP 429, 5xx), each one "
                        "announced (default: %(default)s)")
    p.add_argument("--mcp", action="append", metavar="COMMAND",
                   help="start an MCP server with COMMAND (stdio) and add its tools after miniagent's own, e.g. "
                        "--mcp 'python chapters/a2/mcp_server.py --root .'; may be given more than once "
                        "(chapter A2·4; mcp_tools.py; default: none)")
    return p.parse_args(argv)


class TaskFileError(Exception):
    """The ``@FILE`` given as the task cannot be read."""


def read_task(task: str) -> str:
    """The task text; ``@FILE`` means the text of FILE."""
    if not task.startswith("@"):
        text = task
    else:
        path = Path(task[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise TaskFileError(f"cannot read the task file {path}: {err.strerror or err}") from err
        except UnicodeDecodeError as err:
            raise TaskFileError(f"cannot read the task file {path}: it is not UTF-8 text ({err.reason})") from err
    if not text.strip():  # a model asked to do nothing answers something: refuse before the first call
        raise TaskFileError("the task is empty: say what the agent should do")
    return text


def cut_off(response) -> bool:
    """Whether the server stopped this answer at the completion limit (``finish_reason: "length"``)."""
    try:
        return response["choices"][0].get("finish_reason") == "length"
    except (KeyError, IndexError, TypeError, AttributeError):
        return False


def cut_off_answer(session: Session, max_tokens: int) -> str | None:
    """Why the final answer is not one (the server cut it at the completion limit), or None."""
    last = next((e for e in reversed(session.path_to()) if e["type"] == "model_call"), None)
    if last is None or not cut_off(last.get("response")):
        return None
    return (f"the final answer was cut off at max_tokens, the completion limit of {max_tokens} tokens "
            "(finish_reason \"length\"), so it is incomplete; allow more with --max-tokens")


def nobody_to_ask(name: str, args: dict) -> bool:
    """--approval ask with no terminal on stdin: nobody can say yes, so the answer is no (and said)."""
    print(f"miniagent: approval: refused to {describe(name, args)}: stdin is not a terminal to ask on "
          "(--approval auto runs every call, --allow RULE the calls it covers)", file=sys.stderr)
    return False


def approval_for(args: argparse.Namespace) -> Approval:
    """The --approval policy; under ``ask`` the person at the terminal, or a no when there is none."""
    human = None
    if args.approval == "ask":
        terminal = sys.stdin is not None and sys.stdin.isatty()
        human = terminal_human(sys.stdin, sys.stderr) if terminal else nobody_to_ask
    return Approval(args.approval, tuple(args.allow), human)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        approval = approval_for(args)
    except ValueError as err:  # an --allow rule that names nothing (approval.rule_problem)
        print(f"miniagent: error: --allow: {err}", file=sys.stderr)
        return 2
    try:
        task = read_task(args.task)
        wrapper = Bwrap() if args.sandbox == "bwrap" else None  # no bwrap here: an error, never a silent fallback
        workspace = ConfinedWorkspace(args.workspace, command_timeout=args.timeout, command_wrapper=wrapper)
        memory = MemoryStore(args.memory or default_memory_path(workspace.root), args.memory_limit)
        session_path = args.session or HOME / "sessions" / time.strftime("%Y%m%d-%H%M%S.jsonl")
        if problem := shipped_data_problem(session_path, args.fork):
            raise SessionFileError(problem)
        session = ContinuedSession.open(session_path)
        if session.dropped:
            print(f"note: {session_path}: {session.dropped}; it will be kept in a .torn file", file=sys.stderr)
        if args.fork:
            session.fork(args.fork)
        skills = SkillSet(args.skills, label=args.skills.as_posix()) if args.skills else None
        if skills is not None:
            if not skills.root.is_dir():
                raise ToolError(f"the skills folder {args.skills} is not a directory")
            found = skills.load()
            for problem in skills.problems:  # a bad SKILL.md is skipped, the others still load
                print(f"miniagent: skills: {problem}", file=sys.stderr)
            print(f"  skills {args.skills}: {len(found)} loaded, index {args.skills_index}")
        for line in over_the_cap(workspace.root):  # the prompt's marker says how much, this says which files
            print(f"miniagent: AGENTS.md: {line}", file=sys.stderr)
        base = with_data_rule(BASE_PROMPT) if args.mark_data else BASE_PROMPT
        injection = for_mode(args.mode, base, read_agents_md(workspace.root), memory, workspace.root,
                             skills=skills.index if skills else None, skills_at=args.skills_index)
        model = ChatModel(args.server, args.model, timeout=args.request_timeout, max_retries=args.retries,
                          max_tokens=args.max_tokens)
        if args.text_calls:  # opt-in (A1·L, A2·1): one wrapper for every call, so the call ids count all answers
            model = TextCalls(model)
        compaction = [Compactor(args.compact_at, model_summariser(model))] if args.compact_at is not None else []
        masking = [ToolResultMasking(args.mask)] if args.mask is not None else []
        steps = compaction + masking + [injection]  # the memory design builds on the prefix the others leave
        print(f"miniagent: workspace {workspace.root}\n  memory {memory.path} ({args.mode})\n  session {session_path}")
        limits = Limits(max_rounds=args.max_rounds, max_tokens=args.budget)
        toolbox = Toolbox(workspace, memory, skills, approval=approval)
        if args.paging:  # opt-in (A2·3); before the guard, which wraps whatever read_file is there
            toolbox = with_paging(toolbox)
        if args.edit_guard:
            toolbox = with_edit_guard(toolbox)
        if args.constrained:
            model = ConstrainedModel(model)
        if args.children is not None:  # opt-in (A7): one more tool, the children talk to the same server
            toolbox = add_children(toolbox, session, lambda number, mode: model, log=print,
                                   limits=ChildLimits(limits=Limits(max_rounds=args.children))).toolbox
        if args.mcp:  # opt-in (A2·4): the MCP servers' tools come last; a server that fails stops us here
            toolbox = add_mcp(toolbox, args.mcp)
            atexit.register(toolbox.close)
            for server in toolbox.servers:
                print(f"  mcp {server.command}: {', '.join(d['function']['name'] for d in server.definitions)}")
        if args.mark_data:  # opt-in (A3·3): every tool result reaches the model marked as data
            toolbox = MarkedToolbox(toolbox)
        if args.loop_guard:  # outermost: it sees every call the model makes, whatever tools answer it
            toolbox = LoopGuard(toolbox, patience=args.loop_guard)
            limits = GuardedLimits(max_rounds=args.max_rounds, max_tokens=args.budget, guard=toolbox)
        loop = dict(model=model, toolbox=toolbox, session=session, steps=steps, limits=limits, log=print)
        if args.call_retries:  # opt-in (A2·1): a call the model wrote unreadably is sent back, N times at most
            answer, _ = run_with_retry(task, max_retries=args.call_retries, **loop)
        else:
            answer = run_task(task, **loop)
    except (TaskFileError, ModelError, ToolError, SessionFileError, MemoryFileError, KeyError, OSError) as err:
        print(f"miniagent: error: {err}", file=sys.stderr)
        return 1
    print("\n" + (answer or "(no final answer)"))
    if answer and (reason := cut_off_answer(session, args.max_tokens)):
        session.append("stopped", reason=reason, rounds=None, tokens=None)
        print(f"miniagent: error: {reason}; the session is in {session_path}", file=sys.stderr)
        return 1
    # run_task gives "" both for an empty answer and for running out of rounds; a limit that
    # stopped the run leaves a "stopped" entry saying why (loop.py).
    stopped = session.by_id[session.leaf]
    if not answer and stopped["type"] == "stopped":
        print(f"miniagent: error: {stopped['reason']}; the work so far is in "
              f"{session_path}: continue it with python -m miniagent session resume {session_path} "
              f"--leaf {session.leaf} TASK, or allow more with --max-rounds / --budget", file=sys.stderr)
        return 1
    return 0
