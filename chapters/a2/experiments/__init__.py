"""Chapter A2's experiments: what each lesson measures.

``call_shapes``   A2·1  malformed tool calls per 100 under the native and the text shape, live model;
                        one bounded retry and its cost. A measurement written to data/a2/ (not a
                        recording): ``python -m chapters.a2.experiments.call_shapes run`` then ``summary``
``retry``         A2·1  a malformed call retried once, a call with a wrong argument, a clean run   record a2-1
``four_ways``     A2·5  A1's first request four ways: auto, required, a JSON schema, text + one retry  record a2-ways
``loop_runs``     A2·5  the loop with constrained calls on the live model, with and without the guard record a2-loop
``tool_sets``     A2·2  one task with bash only, pi's four tools, fifteen tools                     record a2-2
``mcp_servers``   A2·4  tools from the course's MCP server: one server, its list changed, two servers record a2-4
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a2-1", "a2", "A2·1 写坏的调用重试一次、参数错的调用、干净的一遍(约 1 分钟)",
               f"{__name__}.retry", {"a2-1-retry-smollm2-llamacpp": "."}),
    Experiment("a2-2", "a2", "A2·2 同一个任务:只有 bash、四个工具、十五个工具(约 1 分钟)",
               f"{__name__}.tool_sets", {"a2-2-tool-sets-smollm2-llamacpp": "."}),
    Experiment("a2-ways", "a2", "A2 四种取得工具调用的方式:auto、required、JSON schema、正文解析加一次重试(分批录,每批 --minutes 分钟)",
               f"{__name__}.four_ways", {"a2-ways-qwen2.5-coder-0.5b-llamacpp": "."}),
    Experiment("a2-loop", "a2", "A2·5 live 模型用约束解码跑循环,有守卫和没有守卫(分批录,每批 --minutes 分钟)",
               f"{__name__}.loop_runs", {"a2-loop-qwen2.5-coder-0.5b-llamacpp": "."}),
    Experiment("a2-4", "a2", "A2·4 MCP 服务器的工具:一个服务器、会话中途换了工具列表、两个服务器(约 1 分钟)",
               f"{__name__}.mcp_servers", {"a2-4-mcp-smollm2-llamacpp": "."}),
]
