"""What chapter A2's lessons draw (plotly figures work without a kernel).

``shapes``   A2·1: the rendered tool block, and malformed calls per 100 under each shape
``tool_sets``  A2·2: the tool block's share of a session's prompt tokens, and its cloud cost, per tool set
``outputs``  A2·3: a big tool result three ways; one change by rewrite or by edit
``mcp``      A2·4: what each request read and recomputed when an MCP server's tool list changed
``ways``     A2·5: the four ways' rates with 95 % intervals, a reply of each, every cached_tokens predicted
"""
