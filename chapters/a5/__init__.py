"""Chapter A5 上下文压缩: the code only its lessons use (pages: book/a5/, labs: labs/a5/, data: data/a5/).

``experiments`` the lessons' recorded experiments (``python -m prefixlab record NAME``): ``context_limit``
                (A5·1, ``a5-1``: a prompt over the server's context), ``compaction_triggers`` (A5·1,
                ``a5-1-triggers``: never, every N messages, the window less a reserve),
                ``tool_output_masking`` (A5·2, ``a5-2``: old tool outputs cut or not, ``--cache-reuse``),
                ``layered_summaries`` (A5·3, ``a5-3``: the live model's summaries 1-3 deep, the rule kept or not),
                ``summary_call`` (A5·4, ``a5-4``: the summary call starting like the agent's prompt)
``figures``     what the lessons draw from their recordings: ``triggers`` (A5·1), ``masking`` (A5·2), ``layers`` (A5·3),
                ``summary_call`` (A5·4), ``provenance`` (the 口径 note every figure carries)
``exercises``   the exercise checkers, one module per lesson: ``a5_1``, ``a5_2``, ``a5_3``, ``a5_4``
``lab``         the lab's apps: ``compaction`` (A5·1's task replayed offline under a trigger you choose)
``paths``       where the chapter's data is (data/a5/: scripts, the files the sessions read)
``tests``       the chapter's tests (its recordings, recorders, pages, exercises and lab)
"""
