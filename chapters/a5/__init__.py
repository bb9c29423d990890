"""Chapter A5 上下文的极限: the code only its lessons use (data: data/a5/; pages and labs come later).

``experiments`` the lessons' recorded experiments, registered as ``a5-1`` and ``a5-2`` (``python -m prefixlab
                record NAME``): ``context_limit`` (A5·1, a prompt over the server's context),
                ``tool_output_masking`` (A5·2, old tool outputs cut, with and without ``--cache-reuse``)
``paths``       where the chapter's data is (data/a5/: scripts, the files the sessions read)
``tests``       the chapter's tests (its recordings and recorders)
"""
