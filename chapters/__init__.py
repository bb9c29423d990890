"""The course's chapters: each chapter's lesson-specific code, one package per chapter.

``a1``   A1 一个循环 (from one chat request to the loop on tool_calls; what twenty rounds cost; limits
         and the usage ledger)
``a2``   A2 工具:模型怎么动手 (the two shapes of a tool call and the live model's malformed calls; how
         many tools a request carries; big outputs paged, exact-string edits and their failures)
``a3``   A3 工作区:让它动手,又不让它闯祸 (paths and commands that try to escape the workspace,
         measured on the reader's machine; approval policies)
``a4``   A4 提示词的形状与前缀缓存 (the prefix cache from scratch: one token changed at position p)
``a5``   A5 上下文的极限 (when to compact; masking old tool outputs; layered summaries; the summary
         call itself)
``a6``   A6 记忆与会话:明天它还记得吗? (instruction files, memory timing, skills, the session tree,
         memory vs retrieval)
``a7``   A7 子 agent:把活分出去 (when to delegate; a fresh or a forked child and what it does to the
         parent's cache; the brief and the limits; a reviewer child, children in parallel)
``a8``   A8 整单账单 (usage in two conventions normalized; the ledger of the session tree, children
         included, against a tally of the context now; one whole task's bill; the bill itself is
         ``python -m prefixlab bill``)
``a9``   A9 它做成了吗?评测一个 agent (a task set with hidden checks; pass rates with intervals, pass@k,
         the spread across seeds; the price of one solved task; the harness is ``python -m prefixlab eval``)

Which pages each chapter has is ``_toc.yml``'s to say (the only list of them).

A chapter package holds what only its lessons use: their figures, exercise checkers, lab apps and
tests. It imports ``prefixlab`` (the instruments) and ``miniagent`` (the agent), never another
chapter; ``prefixlab`` never imports a chapter (tests/test_chapter_layout.py checks both). The
chapter's pages are ``book/<chapter>/``, its labs ``labs/<chapter>/``, its data ``data/<chapter>/``.
"""
