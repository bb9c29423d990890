"""A2·4's lab cell: change the MCP servers' tool lists, see what the change costs the prefix cache.

``change_effect(before, after)``: each argument is a list of servers, each server a list of tool names from
the course server's four (``data/a2/mcp-tools.json``), in order, after miniagent's own six tools. It renders
A2·4's first request with both tool lists (course template and tokenizer) and says how long their common
token prefix is, how many tokens must be computed again after the change, and what that costs once at
Anthropic's prices (those tokens written to the cache again instead of read). The break is the course
template's; Anthropic renders tools before the system text, so there it also takes the system text along.
No server is needed.

The lab notebook (labs/a2/mcp-tools.ipynb) shows the same as widgets: ``MCPListApp`` (a preset change
or two typed lists, ``parse_servers``/``format_servers``) and ``RecordingApp`` (``recorded_requests``: each
request of a session of the shipped A2·4 recording, read as measured and as the calculator predicts).
"""
from __future__ import annotations

from chapters.a2.mcp_costs import by_name, change, own_tools, stored
from chapters.a2.tool_blocks import CLOUD_MODEL
from prefixlab.cache.pricing import model_price
from prefixlab.presenting.lab.app import WidgetApp, error_html, panel


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


# -- the lab notebook (labs/a2/mcp-tools.ipynb): the same cell as widgets, and the shipped recording ---------
# The lesson's suggestions, each a (before, after) pair of server lists.
PRESETS = {
    "show_check 加在第一个服务器末尾": ([["run_checks", "list_checks"], ["search"]],
                                   [["run_checks", "list_checks", "show_check"], ["search"]]),
    "show_check 加在第二个服务器末尾": ([["run_checks", "list_checks"], ["search"]],
                                   [["run_checks", "list_checks"], ["search", "show_check"]]),
    "一个服务器,末尾加 show_check": ([["run_checks", "list_checks", "search"]],
                                  [["run_checks", "list_checks", "search", "show_check"]]),
    "删掉 list_checks": ([["run_checks", "list_checks"], ["search"]], [["run_checks"], ["search"]]),
    "只调换两个工具的顺序": ([["run_checks", "list_checks"], ["search"]], [["list_checks", "run_checks"], ["search"]]),
}


def format_servers(servers) -> str:
    """``[["a", "b"], ["c"]]`` -> ``"a, b | c"``: servers separated by ``|``, tools by commas."""
    return " | ".join(", ".join(server) for server in servers)


def parse_servers(text: str) -> list[list[str]]:
    """The inverse of ``format_servers``; an empty text is no MCP server at all."""
    if not isinstance(text, str):
        raise ValueError("写成文字,例如 run_checks, list_checks | search")
    if not text.strip():
        return []
    servers = [[n.strip() for n in part.split(",") if n.strip()] for part in text.split("|")]
    if any(not s for s in servers):
        raise ValueError("有一个服务器一个工具也没写:两个 | 之间要有工具名")
    return servers


def recorded_requests(session: str, recording=None) -> str:
    """One line per request of a session of the shipped A2·4 recording: tools sent, prompt, read
    (measured by the server, and what the calculator predicts)."""
    from prefixlab.cache import calculator
    from prefixlab.recording.format import load

    from chapters.a2.paths import MCP_RECORDING

    rec = recording or load(MCP_RECORDING)
    ids = [s["id"] for s in rec.manifest["sessions"]]
    if session not in ids:
        raise ValueError(f"录制里没有这个会话:{session!r};可选:{', '.join(ids)}")
    rows = [r for r in calculator.analyze(rec) if r.session == session]
    calls = rec.session_calls(session)
    info = next(s for s in rec.manifest["sessions"] if s["id"] == session)
    lines = [f"会话 {session}:MCP 服务器 " + ";".join(info["mcp_servers"]),
             "请求 | 工具数 | prompt | 读取(服务器) | 读取(计算器) | 重算"]
    before = None
    for call, row in zip(calls, rows):
        tools = [t["function"]["name"] for t in call.request.get("tools") or []]
        new = "" if before is None or tools == before else "  ← 工具列表变了:" + ", ".join(
            sorted(set(tools) ^ set(before)) or ["顺序"])
        lines.append(f"{row.round} | {len(tools)} | {row.prompt_tokens:,} | {row.measured:,} | {row.read:,} | "
                     f"{row.prompt_tokens - row.measured:,}{new}")
        before = tools
    agree = sum(r.read == r.measured for r in rows)
    lines.append(f"{len(rows)} 个请求,计算器与服务器一致的 {agree} 个。")
    return "\n".join(lines)


class MCPListApp(WidgetApp):
    """Choose a change of the MCP tool lists (or type both lists), see what the cache must recompute."""

    TITLE = "换 MCP 工具列表"

    def __init__(self):
        import ipywidgets as w

        style = {"description_width": "6em"}
        self.preset = w.Dropdown(description="试一试", style=style, options=list(PRESETS),
                                 value=next(iter(PRESETS)), layout=w.Layout(width="70%"))
        self.before = w.Text(description="换之前", style=style, layout=w.Layout(width="70%"), continuous_update=False)
        self.after = w.Text(description="换之后", style=style, layout=w.Layout(width="70%"), continuous_update=False)
        self.out = w.HTML()
        self._filling = False
        self.preset.observe(lambda _: self._preset(), "value")
        for box in (self.before, self.after):
            box.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.preset, self.before, self.after, self.out])
        self._preset()

    def _preset(self):
        before, after = PRESETS[self.preset.value]
        self._filling = True  # one redraw for the two boxes, not one per box
        try:
            self.before.value, self.after.value = format_servers(before), format_servers(after)
        finally:
            self._filling = False
        self._show()

    def _show(self):
        if self._filling:
            return
        try:
            text = describe(parse_servers(self.before.value), parse_servers(self.after.value))
        except ValueError as err:
            self.out.value = error_html(str(err))
            return
        self.out.value = panel(text)


class RecordingApp(WidgetApp):
    """The shipped A2·4 recording, one session at a time."""

    TITLE = "A2·4 的录制"

    def __init__(self, recording=None):
        import ipywidgets as w

        from prefixlab.recording.format import load

        from chapters.a2.paths import MCP_RECORDING

        self.rec = recording or load(MCP_RECORDING)
        ids = [s["id"] for s in self.rec.manifest["sessions"]]
        self.session = w.Dropdown(description="会话", style={"description_width": "6em"}, options=ids, value=ids[0])
        self.out = w.HTML()
        self.session.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.session, self.out])
        self._show()

    def _show(self):
        self.out.value = panel(recorded_requests(self.session.value, self.rec), wrap=False)
