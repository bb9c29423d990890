"""Chapter A2's lab apps (labs/a2/).

``tool_block``  choose tools, see the block the template writes for them, its tokens and its cloud cost
``mcp_list``    A2·4: change the MCP servers' tool lists, see where the prefix breaks; the shipped recording
``ways``        A2·5: pick one of the four ways to get a call, see the recorded request, reply and prompt cost
"""
