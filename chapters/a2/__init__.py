"""Chapter A2 工具:模型怎么动手: the code only its lessons use (pages: book/a2/, labs: labs/a2/, data: data/a2/).

``experiments`` what the lessons measure: ``call_shapes`` (A2·1: malformed calls per shape with the live
                model, and what one retry costs; a measurement, not a recording), ``retry`` (A2·1, recorded
                as ``a2-1``: a malformed call retried once), ``tool_sets`` (A2·2, ``a2-2``: one, four,
                fifteen tools), ``four_ways`` (A2·5, ``a2-ways``: A1's first request four ways), ``loop_runs`` (A2·5,
                ``a2-loop``: the loop with constrained calls, with and without the guard) and ``mcp_servers`` (A2·4, ``a2-4``: tools from an MCP server)
``tool_blocks`` the tool block of a request, rendered offline by a chat template and counted with the real
                tokenizer (A2·1, A2·2): where it sits, how many tokens it takes, what it costs in a session
``outputs_and_edits`` A2·3's numbers: a big file read whole, capped, paged; one change by rewrite or edit
``edit_failures`` A2·3: how an edit fails, and what the model is told, with and without the edit guard
``mcp_server``  A2·4: the course's MCP server (official SDK, stdio): the toy repository's checks and a search
``mcp_costs``   A2·4's numbers offline: the server's tools listed, their tokens, where they sit, a list change
``four_ways``   the four ways of getting a tool call (auto, required, a JSON schema, text + retry), tabled from
                the ``a2-ways`` recording, with 95 % intervals (A2·5; data/a2/four-ways.json for the map)
``loops``       A2·5: the ``a2-loop`` runs counted: how each ended (answer, round limit, the guard), repeats
``required_probe`` a verbose live-server probe: which grammar llama-server builds for ``tool_choice``
``figures``     what the lessons draw (plotly figures work without a kernel): ``shapes`` (A2·1), ``tool_sets``
                (A2·2), ``outputs`` (A2·3), ``mcp`` (A2·4), ``ways`` (A2·5)
``exercises``   the exercise checkers, one module per lesson: ``a2_1`` … ``a2_5``
``lab``         the lab's app (labs/a2/tool-block.ipynb): the tool block of the tools you choose, the four ways (``ways``); A2·4's cell
``paths``       where the chapter's data is (data/a2/)
``tests``       the chapter's tests (data files current, recorders offline and on a real server, pages, lab)
"""
