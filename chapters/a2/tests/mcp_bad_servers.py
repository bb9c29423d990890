"""Broken MCP servers for the tests (never a result): a few lines of JSON-RPC on stdio.

    python mcp_bad_servers.py MODE

``die-on-list``: answers the handshake, then exits when asked for its tools.
``die-on-call``: lists one good tool, exits when it is called.
``hang-on-list`` / ``hang-on-call``: never answers that request.
``bad-schema``: lists a tool whose property "pattern" is the word "string", not a schema; ``not-a-schema``: a string. ``bad-name``: a tool named "run checks!".
"""
import json
import sys
import time

GOOD = {"name": "ping", "description": "Answer pong.", "inputSchema": {"type": "object", "properties": {}}}
LISTS = {"bad-schema": [{"name": "broken", "description": "x", "inputSchema": {"type": "object", "properties": {"pattern": "string"}}}],
         "not-a-schema": [{"name": "broken", "description": "x", "inputSchema": "not a schema"}],
         "bad-name": [{**GOOD, "name": "run checks!"}]}


def reply(request_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n")
    sys.stdout.flush()


def main(mode: str) -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            reply(request_id, {"protocolVersion": message["params"]["protocolVersion"],
                               "capabilities": {"tools": {}}, "serverInfo": {"name": "bad", "version": "0"}})
        elif method == "tools/list":
            if mode == "die-on-list":
                sys.exit(3)
            if mode == "hang-on-list":
                time.sleep(3600)
            reply(request_id, {"tools": LISTS.get(mode, [GOOD])})
        elif method == "tools/call":
            if mode == "die-on-call":
                sys.exit(3)
            if mode == "hang-on-call":
                time.sleep(3600)
            reply(request_id, {"content": [{"type": "text", "text": "pong"}]})
        elif request_id is not None:  # anything else the client asks: an empty result
            reply(request_id, {})


if __name__ == "__main__":
    main(sys.argv[1])
