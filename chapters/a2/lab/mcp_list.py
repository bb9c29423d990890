"""A2·4's lab cell: change the MCP servers' tool lists, see what the change costs the prefix cache.

``change_effect(before, after)``: each argument is a list of servers, each server a list of tool names from
the course server's four (``data/a2/mcp-tools.json``), in order, after miniagent's own six tools. It renders
A2·4's first request with both tool lists (course template and tokenizer) and says how long their common
token prefix is, how many tokens must be computed again after the change, and what that costs once at
Anthropic's prices (those tokens written to the cache again instead of read). The break is the course
template's; Anthropic renders tools before the system text, so there it also takes the system text along.
No server is needed.
"""
from __future__ import annotations

from chapters.a2.mcp_costs import by_name, change, own_tools, stored
from chapters.a2.tool_blocks import CLOUD_MODEL
from prefixlab.cache.pricing import model_price


def tools_of(servers) -> list[dict]:
    known = by_name(stored()["definitions"])
    if not isinstance(servers, (list, tuple)) or not all(isinstance(s, (list, tuple)) for s in servers):
        raise ValueError("每一边都要写成服务器的列表,每个服务器是工具名的列表,例如 [['run_checks', 'search']]")
    names = [n for server in servers for n in server]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"课程服务器没有这个工具:{', '.join(map(str, unknown))};可选的是 {', '.join(known)}")
    if len(set(names)) != len(names):
        raise ValueError("同一个名字出现了两次:miniagent 会拒绝启动(两个工具不能同名)")
    return own_tools() + [known[n] for n in names]


def change_effect(before, after) -> dict:
    """The first request with the tool lists ``before`` and ``after``, and the price of the change."""
    result = change(tools_of(before), tools_of(after))
    p = model_price(CLOUD_MODEL)
    extra = result["recomputed"] * p.base_input * (p.multipliers["write_5m"] - p.multipliers["read"]) / 1e6
    return {**result, "cloud_model": p.name, "cloud_extra_usd": extra}


def describe(before, after) -> str:
    r = change_effect(before, after)
    return (f"换之前 {r['before']:,} 个 token,换之后 {r['after']:,} 个;两者开头相同的 {r['common_prefix']:,} 个 token"
            f"还能从缓存读取,其后的 {r['recomputed']:,} 个要重算。\n"
            f"按 {r['cloud_model']} 的价目粗算(断点按课程模板),这一次换列表多花 {r['cloud_extra_usd']:.6f} 美元"
            "(这些 token 重新写入缓存,而不是按读取价读取);会话越长,断点之后的历史越长,多花的越多。")
