"""The course's MCP server (A2·4): the toy repository's checks and a search over it, on stdio.

    python chapters/a2/mcp_server.py --root data/toy-repo
    python chapters/a2/mcp_server.py --root REPO --tools run_checks,search --add-after 2

Built with the official MCP Python SDK (``mcp``, ``MCPServer``): each tool is a type-hinted
function, the SDK turns its signature and docstring into the tool's JSON schema. It speaks MCP
over stdin/stdout, so a client starts it as a child process; there is no network.

``--tools`` picks which of ``TOOLS`` it offers (the lab changes this list). ``--add-after N``
makes the tool list change mid-session, the case MCP's ``notifications/tools/list_changed`` is
for: after the N-th tool call the server adds ``show_check`` and tells the client so.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer

CHECK_TIMEOUT = 30.0  # seconds
SEARCH_LIMIT = 50  # matching lines returned


def repo_files(root: Path) -> list[Path]:
    """The repository's text files, relative paths in order (no .git)."""
    return sorted(p.relative_to(root) for p in root.rglob("*")
                  if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts)


def make_server(root: Path, tools: list[str], add_after: int | None = None) -> MCPServer:
    root = root.resolve()
    server = MCPServer("toy-repo")
    calls = {"n": 0}

    async def changed_after(ctx: Context, result: str) -> str:
        """Count the call; after the ``add_after``-th, add show_check and send tools/list_changed."""
        calls["n"] += 1
        if calls["n"] == add_after and "show_check" not in tools:
            server.add_tool(show_check)
            await ctx.session.send_tool_list_changed()
        return result

    async def run_checks(ctx: Context) -> str:
        """Run the repository's checks (python tools/check.py); one PASS or FAIL line per check."""
        # -B: no __pycache__ left in the repository (the shipped toy repository must stay as it is)
        proc = subprocess.run([sys.executable, "-B", "tools/check.py"], cwd=root, capture_output=True, text=True,
                              timeout=CHECK_TIMEOUT)
        return await changed_after(ctx, proc.stdout + proc.stderr + f"[exit code {proc.returncode}]")

    async def list_checks(ctx: Context) -> str:
        """The names of the repository's checks, one per line."""
        text = (root / "tools" / "check.py").read_text(encoding="utf-8")
        return await changed_after(ctx, "\n".join(re.findall(r'^\s*\("([^"]+)"', text, re.M)))

    async def search(ctx: Context, pattern: str) -> str:
        """Lines of the repository's files that match a regular expression, as path:line: text."""
        try:
            regex = re.compile(pattern)
        except re.error as err:
            return await changed_after(ctx, f"error: not a regular expression: {err}")
        hits = []
        for rel in repo_files(root):
            try:
                lines = (root / rel).read_text(encoding="utf-8").splitlines()
            except (UnicodeDecodeError, OSError):
                continue
            hits += [f"{rel.as_posix()}:{i}: {line}" for i, line in enumerate(lines, 1) if regex.search(line)]
        return await changed_after(ctx, "\n".join(hits[:SEARCH_LIMIT]) or "no match")

    async def show_check(ctx: Context, name: str) -> str:
        """The line of tools/check.py that defines one check, by its name."""
        for line in (root / "tools" / "check.py").read_text(encoding="utf-8").splitlines():
            if f'("{name}"' in line:
                return await changed_after(ctx, line.strip())
        return await changed_after(ctx, f"error: no check named {name!r}")

    offered = {f.__name__: f for f in (run_checks, list_checks, search, show_check)}
    unknown = [t for t in tools if t not in offered]
    if unknown:
        raise SystemExit(f"mcp_server: unknown tool(s) {', '.join(unknown)}; choose from {', '.join(offered)}")
    for name in tools:
        server.add_tool(offered[name])
    return server


TOOLS = ("run_checks", "list_checks", "search", "show_check")
DEFAULT_TOOLS = ("run_checks", "list_checks", "search")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="mcp_server.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--root", type=Path, default=Path("."), help="the repository (default: .)")
    p.add_argument("--tools", default=",".join(DEFAULT_TOOLS),
                   help=f"comma-separated tools to offer, of {', '.join(TOOLS)} (default: %(default)s)")
    p.add_argument("--add-after", type=int, metavar="N",
                   help="after the N-th tool call, add show_check and send tools/list_changed")
    args = p.parse_args(argv)
    tools = [t for t in args.tools.split(",") if t]
    make_server(args.root, tools, args.add_after).run("stdio")


if __name__ == "__main__":
    main()
