"""Chapter A3's experiments: what each lesson records against a real server.

A3·1 measures commands and paths on the reader's own machine (``chapters.a3.escapes``), no server involved.

``approval_policies``   A3·2  one task, asked in the chat and under five approval policies   record a3-2
``prompt_injection``    A3·3  a file gives orders; the obedient script under five defences  record a3-3
``injection_live``      A3·3  how often the live model obeys it, plain and marked as data   record a3-3-live
"""
from prefixlab.recording.experiments import Experiment

EXPERIMENTS = [
    Experiment("a3-2", "a3", "A3·2 审批:同一个任务,在对话里问和五种审批策略(2 核上约 5-10 分钟)", f"{__name__}.approval_policies",
               {"a3-2-approval-smollm2-llamacpp": "."}),
    Experiment("a3-3", "a3", "A3·3 提示词注入:文件里的命令,脚本顺从时五种防线各做了什么(约 3-5 分钟)",
               f"{__name__}.prompt_injection", {"a3-3-injection-smollm2-llamacpp": "."}),
    Experiment("a3-3-live", "a3", "A3·3 提示词注入:live 模型照做几次,普通与标成数据(分批录制)",
               f"{__name__}.injection_live", {"a3-3-live-qwen2.5-coder-0.5b-llamacpp": "."}),
]
