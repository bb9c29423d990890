"""Tools from MCP servers (chapter A2·4): opt-in, ``--mcp "python path/to/server.py"``.

An MCP server is a separate program that offers tools over the Model Context Protocol. This
module starts one as a child process (the stdio transport: JSON-RPC over its stdin and stdout),
asks it for its tools (``tools/list``) and adds them, as OpenAI tool definitions, **after**
miniagent's own tools. A call to one of them goes to the server (``tools/call``); its text is
the tool result. The loop does not change: it still reads ``toolbox.definitions`` before every
request and calls ``toolbox.call``.

The official Python SDK (``mcp``) is asynchronous; miniagent is not. One background thread
(an anyio portal) owns the connection, and every request to the server waits there for at most
``timeout`` seconds: a server that hangs gives an error, not a stuck agent.

A server may change its list while the session runs and say so with
``notifications/tools/list_changed``; the next request then carries the new list (the tool block
changes, and with it the prompt's prefix: see A2·4).

Failures and what they give:

- the server cannot start, dies or hangs before it lists its tools, or lists a tool whose schema
  is not usable (a name the API refuses, an ``inputSchema`` that is not an object schema), or a
  name another tool already has: ``MCPError`` (a ToolError) before the first request; the
  session file keeps everything it had;
- a call that fails, times out, or finds the server gone: an ``error: ...`` tool result the model
  reads, like any other tool's error.
"""
from __future__ import annotations

import json
import re
import shlex
import threading

import anyio
from anyio.from_thread import start_blocking_portal

from .tools import ToolError, schema_problem

MCP_TIMEOUT = 30.0  # seconds for the server to start and list its tools, and for one call
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what the chat APIs accept as a function name


class MCPError(ToolError):
    """An MCP server that cannot be used: it did not start, died, hung or listed a bad tool."""


def definition(tool: dict, server: str) -> dict:
    """An MCP tool (``tools/list`` entry, as JSON) as an OpenAI tool definition; MCPError if unusable."""
    name, schema = tool.get("name"), tool.get("inputSchema")
    if not isinstance(name, str) or not NAME.match(name):
        raise MCPError(f"MCP server {server!r} lists a tool named {name!r}; a tool name must be 1-64 "
                       "letters, digits, '_' or '-'")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise MCPError(f"MCP server {server!r}: tool {name!r} has an inputSchema that is not a JSON object "
                       f"schema ({json.dumps(schema)[:80]})")
    properties, required = schema.get("properties", {}), schema.get("required", [])
    # The arguments are checked against these before a call (tools.schema_problem): they must be usable.
    if not isinstance(properties, dict) or not all(isinstance(p, dict) for p in properties.values()):
        raise MCPError(f"MCP server {server!r}: tool {name!r} has an inputSchema whose properties are not an "
                       f"object of schemas ({json.dumps(properties)[:80]})")
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise MCPError(f"MCP server {server!r}: tool {name!r} has an inputSchema whose required is not a list "
                       f"of names ({json.dumps(required)[:80]})")
    return {"type": "function", "function": {"name": name, "description": tool.get("description") or "",
                                             "parameters": schema}}


def result_text(result: dict) -> str:
    """A ``tools/call`` result as the tool result the model reads: its text blocks, joined."""
    parts = [block["text"] for block in result.get("content") or [] if block.get("type") == "text"]
    others = len(result.get("content") or []) - len(parts)
    text = "\n".join(parts) + (f"\n[{others} non-text content block(s) left out]" if others else "")
    return f"error: {text}" if result.get("isError") else text


class MCPServer:
    """One MCP server on stdio, used synchronously: ``definitions`` and ``call(name, arguments)``."""

    def __init__(self, command: str, timeout: float = MCP_TIMEOUT):
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters

        argv = shlex.split(command)
        if not argv:
            raise MCPError("an MCP server command is empty")
        self.command, self.timeout = command, timeout
        self.stale = False  # set by tools/list_changed: list again before the next request
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._ready, self._closed = threading.Event(), None
        self._client = None
        client = Client(StdioServerParameters(command=argv[0], args=argv[1:]), mode="legacy",
                        read_timeout_seconds=timeout, message_handler=self._on_message)
        self._owner = self._portal.start_task_soon(self._own, client)
        self._owner.add_done_callback(lambda _: self._ready.set())  # a server that dies: stop waiting now
        try:
            if not self._ready.wait(timeout) or self._client is None:
                if self._owner.done() and self._owner.exception():
                    raise MCPError(f"MCP server {command!r} did not start: {describe(self._owner.exception())}")
                raise MCPError(f"MCP server {command!r} did not answer within {timeout:g} s")
            self.definitions = self._list()
        except BaseException:
            self.close()
            raise

    async def _own(self, client) -> None:
        """The task that holds the connection open until ``close``."""
        self._closed = anyio.Event()
        async with client:
            self._client = client
            self._ready.set()
            await self._closed.wait()

    async def _on_message(self, message) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self.stale = True

    def _request(self, make, what: str):
        async def bounded():
            with anyio.fail_after(self.timeout):
                return await make()
        try:
            return self._portal.call(bounded)
        except TimeoutError:
            raise MCPError(f"MCP server {self.command!r} did not answer {what} within {self.timeout:g} s") from None
        except Exception as err:  # the SDK's error for a closed connection, a refused request, ...
            raise MCPError(f"MCP server {self.command!r}: {what} failed: {describe(err)}") from None

    def _list(self) -> list[dict]:
        result = self._request(lambda: self._client.list_tools(cache_mode="refresh"), "tools/list")
        tools = [t.model_dump(by_alias=True, exclude_none=True) for t in result.tools]
        self.stale = False
        self.schemas = {t["name"]: t.get("inputSchema") for t in tools}
        return [definition(t, self.command) for t in tools]

    def refresh(self) -> bool:
        """After a tools/list_changed: list again. True if the definitions changed."""
        if not self.stale:
            return False
        old, self.definitions = self.definitions, self._list()
        return old != self.definitions

    def call(self, name: str, args: dict) -> str:
        try:
            result = self._request(lambda: self._client.call_tool(name, args), f"tools/call {name}")
        except MCPError as err:
            return f"error: {err}"
        return result_text(result.model_dump(by_alias=True, exclude_none=True))

    def close(self) -> None:
        """Stop the server (the SDK ends the child process) and the portal thread."""
        try:
            if self._closed is not None and not self._owner.done():
                self._portal.call(self._closed.set)
            if not self._owner.done():
                self._owner.cancel()
        finally:
            self._portal_cm.__exit__(None, None, None)


def describe(err: BaseException) -> str:
    """One short line for an error, its first inner error if it is a group (anyio's task groups raise those)."""
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        err = err.exceptions[0]
    text = " ".join(str(err).split())  # pydantic's errors span several lines
    text = text if len(text) <= 300 else text[:299] + "…"
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


class WithMCP:
    """A toolbox plus the tools of MCP servers, after its own; the loop sees one toolbox."""

    def __init__(self, toolbox, servers: list[MCPServer]):
        self.toolbox, self.servers = toolbox, servers
        self._route()

    def _route(self) -> None:
        """Which server each MCP tool name belongs to; MCPError for a name that is taken twice."""
        self.owner = {}
        taken = {d["function"]["name"] for d in self.toolbox.definitions}
        for server in self.servers:
            for d in server.definitions:
                name = d["function"]["name"]
                if name in taken:
                    raise MCPError(f"MCP server {server.command!r} offers {name!r}, a name another tool has")
                taken.add(name)
                self.owner[name] = server

    @property
    def definitions(self) -> list[dict]:
        # Read by the loop before every request: a server's tools/list_changed shows up here.
        if any([server.refresh() for server in self.servers]):
            self._route()
        return self.toolbox.definitions + [d for server in self.servers for d in server.definitions]

    def call(self, name: str, arguments) -> str:
        server = self.owner.get(name)
        if server is None:
            return self.toolbox.call(name, arguments)
        try:
            args = json.loads(arguments or "{}") if isinstance(arguments, str) else arguments
        except json.JSONDecodeError as err:
            return f"error: arguments are not valid JSON ({err})"
        problem = schema_problem(args, server.schemas.get(name) or {})
        if problem:
            return f"error: bad arguments for {name}: {problem}"
        return server.call(name, args)

    def close(self) -> None:
        for server in self.servers:
            server.close()


def add_mcp(toolbox, commands: list[str], timeout: float = MCP_TIMEOUT) -> WithMCP:
    """Start every MCP server of ``commands`` and add their tools to ``toolbox``; MCPError if one fails
    (the servers already started are stopped)."""
    servers: list[MCPServer] = []
    try:
        for command in commands:
            servers.append(MCPServer(command, timeout))
        return WithMCP(toolbox, servers)
    except BaseException:
        for server in servers:
            server.close()
        raise
