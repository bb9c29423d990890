"""Chapter A6 记忆与会话: the code only its lessons use (pages: book/a6/, labs: labs/a6/, data: data/a6/).

``figures``     what the lessons draw and compute from their recordings
  ``agents_md_explorer``  A6·1: which AGENTS.md files the loader reads, in what order, where the cap cuts
  ``rule_placement``      A6·1: every T11 request's make-up, where the rule is, where the prefix breaks
  ``swimlane``            A6·2: where the memory is at every request (on disk, system prompt, conversation)
  ``memory_timing``       A6·2: the swimlane figure and the prefix break per cache rule and k
  ``skills``              A6·3: what dozens of skills cost in the prompt, where a new one breaks the prefix
  ``session_tree``        A6·4: the session tree and branch switching under three server setups
  ``rewind``              A6·4: "go back n rounds" on a linear list versus on the tree
  ``strategies``          A6·R: three ways of getting memory into the requests, request by request
  ``recall``              A6·R: the recall test (which needed notes a request carries, at what cost)
``exercises``   the exercise checkers, one module per lesson: ``a6_1``, ``a6_2``, ``a6_3``, ``a6_4``, ``a6_r``
``lab``         the lesson labs' apps (plain state for tests, an ipywidgets layer for labs/a6/)
  ``instruction_files``   A6·1: the T11 requests and the AGENTS.md loader
  ``skills``              A6·3: skills' cost, the skills loader, a request with a skill added
  ``session_tree``        A6·4: the T13 session tree, branch switching, a sandbox session
  ``retrieval``           A6·R: ask the notes anything, see what BM25 picks
``experiments`` the lessons' recorded experiments, registered as ``a6-1`` … ``a6-r`` (``python -m prefixlab
                record NAME``), one module per lesson: ``instruction_files`` (T11), ``memory_timing`` (T10),
                ``skills`` (T12), ``session_tree`` (T13), ``memory_vs_retrieval`` (T14)
``paths``       where the chapter's data is (data/a6/: scripts, tasks, notes, recall set, loader tree, skills)
``tests``       the chapter's tests (its pages, figures, exercises, labs and recorders)

Course-wide tools (the evolution map component, the calculator lab, the book helpers) are in
``prefixlab.presenting``; the chapter's group names are data (``data/a6/groups.yml``).
"""
