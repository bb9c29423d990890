"""Chapter A4 提示词的形状与前缀缓存: the code only its lessons use (pages: book/a4/, data: data/a4/).

``experiments`` the lessons' recorded experiments: ``one_token`` (A4·1, registered as ``a4-1``: one token
                changed at position p, swept over a prompt of about 2,000 tokens), ``volatile_top`` (A4·2,
                ``a4-2``: a time-and-files block at the top or the end of the system prompt, or the date only),
                ``rewrite_history`` (A4·3, ``a4-3``: the same session as an append-only message list or
                re-rendered into one user message every round)
``figures``     what the lessons draw from their recordings: ``one_token`` (A4·1: the read at every p, per
                rule), ``volatile_top`` (A4·2: read and recomputed per round, the cost of a session),
                ``rewrite_history`` (A4·3: where each round breaks, the census of one request)
``exercises``   the exercise checkers, one module per lesson: ``a4_1``, ``a4_2``, ``a4_3``
``lab``         the chapter's lab (labs/a4/prefix-cache): one change to A4·1's prompt under every rule
``paths``       where the chapter's data is (data/a4/: the sweep's settings, a longer AGENTS.md, A4·2's and
                A4·3's scripts)
``tests``       the chapter's tests (its recordings, its recorders on a real server, its pages, exercises, lab)
"""
