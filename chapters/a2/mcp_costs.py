"""A2·4's numbers offline: what the course MCP server's tools add to a request, and where.

    python -m chapters.a2.mcp_costs      # lists the server's tools, writes data/a2/mcp-tools.json

The tool definitions are the ones miniagent sends: listed from the real server
(``chapters/a2/mcp_server.py``, all four tools) through ``miniagent.mcp_tools``, and kept in the data file
so the book does not start a server. Everything else is rendered with the course template and counted
with the real tokenizer (``chapters.a2.tool_blocks``):

- ``tokens_per_tool``: what each MCP tool adds to the tool block (miniagent's six tools first, as sent);
- ``position``: where the MCP tools start in the first request: the tokens before them (the system
  text and miniagent's tools) and after (the rest of the tool block, the task);
- ``change``: a tool added to the list mid-session, as ``tools/list_changed`` makes it: the common
  token prefix of the request before and after the change, with the new tool at the end of one server's
  list, or with that server first of two (the new tool lands before the second server's tools).
"""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from chapters.a2.paths import A2_DATA
from chapters.a2.tool_blocks import block_tokens, first_request, renderer
from prefixlab.cache.tokenizer import text_token_ids
from prefixlab.paths import REPO_ROOT, TOY_REPO

MCP_TOOLS = A2_DATA / "mcp-tools.json"
SERVER = REPO_ROOT / "chapters" / "a2" / "mcp_server.py"
ALL = "run_checks,list_checks,search,show_check"
DEFAULT = ("run_checks", "list_checks", "search")
SCRIPT = A2_DATA / "mcp" / "script.yml"


def list_server_tools(tools: str = ALL, root: Path = TOY_REPO) -> list[dict]:
    """Start the course's MCP server with ``tools`` and return its definitions as miniagent sends them."""
    from miniagent.mcp_tools import MCPServer

    server = MCPServer(shlex.join([sys.executable, str(SERVER), "--root", str(root), "--tools", tools]))
    try:
        return server.definitions
    finally:
        server.close()


def stored() -> dict:
    return json.loads(MCP_TOOLS.read_text(encoding="utf-8"))


def own_tools() -> list[dict]:
    """miniagent's own six tools, as every request sends them first."""
    from miniagent.memory import MemoryStore
    from miniagent.tools import Toolbox, Workspace

    return Toolbox(Workspace(TOY_REPO), MemoryStore(Path("/nonexistent/MEMORY.md"))).definitions


def system_and_task() -> tuple[str, str]:
    import yaml
    script = yaml.safe_load(SCRIPT.read_text(encoding="utf-8"))
    return script["system"], script["task"]


def by_name(definitions: list[dict]) -> dict[str, dict]:
    return {d["function"]["name"]: d for d in definitions}


def prompt_ids(tools: list[dict], model: str = "course") -> list[int]:
    system, task = system_and_task()
    r = renderer(model)
    return text_token_ids(r.tokenizer, r.prompt(first_request(system, task), tools))


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def change(before: list[dict], after: list[dict], model: str = "course") -> dict:
    """The first request with the tool list ``before`` and ``after``: sizes and their common token prefix."""
    old, new = prompt_ids(before, model), prompt_ids(after, model)
    shared = common_prefix(old, new)
    return {"before": len(old), "after": len(new), "common_prefix": shared, "recomputed": len(new) - shared}


def measure(definitions: list[dict] | None = None) -> dict:
    definitions = definitions if definitions is not None else stored()["definitions"]
    mcp = by_name(definitions)
    own = own_tools()
    system, task = system_and_task()
    default = [mcp[n] for n in DEFAULT]
    out = {"what": "A2·4: the course MCP server's tools, listed from the server and counted offline with the "
                   "course template and tokenizer (python -m chapters.a2.mcp_costs)",
           "definitions": definitions,
           "own_tools": len(own), "own_block_tokens": block_tokens(system, own, task),
           "tokens_per_tool": {n: block_tokens(system, own + [d], task) - block_tokens(system, own, task)
                               for n, d in mcp.items()},
           "server_block_tokens": block_tokens(system, own + default, task) - block_tokens(system, own, task)}
    before_mcp = common_prefix(prompt_ids(own), prompt_ids(own + default))
    total = len(prompt_ids(own + default))
    out["position"] = {"prompt_tokens": total, "before_mcp_tools": before_mcp, "after": total - before_mcp,
                       "system_text_tokens": len(text_token_ids(renderer("course").tokenizer, system))}
    added = mcp["show_check"]
    first, second = [mcp["run_checks"], mcp["list_checks"]], [mcp["search"]]
    out["change"] = {
        "one_server": change(own + default, own + default + [added]),
        "two_servers": change(own + first + second, own + first + [added] + second),
        "two_servers_last": change(own + second + first, own + second + first + [added]),
    }
    return out


def main() -> int:
    data = measure(list_server_tools())
    MCP_TOOLS.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {MCP_TOOLS}: {json.dumps({k: v for k, v in data.items() if k != 'definitions'})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
