"""Chapter A3 工作区:让它动手,又不让它闯祸: the code only its lessons use (pages: book/a3/, data: data/a3/).

``escapes``     A3·1's cases, runnable and measured: paths that try to leave the workspace, commands
                that never end, print for ever, leave the group with setsid or read a secret; each
                run the naive way, the process-group way and miniagent's way
``approvals``   A3·2's numbers from its recording: per session, requests, questions put to the human,
                calls refused, tokens; the request that follows a refusal
``injection``   A3·3's pieces: the injected file and its canary, what a run led to, what each defence does to
                one tool call (``verdict``, without running it), the live runs' first calls, the lab's obedient reader
``figures``     what the lessons draw: ``escapes`` (A3·1: the command cases), ``approval`` (A3·2: read and
                recomputed, request by request)
``exercises``   the exercise checkers, one module per lesson: ``a3_1``, ``a3_2``, ``a3_3``
``experiments`` the chapter's recorded experiments: ``approval_policies`` (A3·2, registered as ``a3-2``),
                ``prompt_injection`` and ``injection_live`` (A3·3, ``a3-3`` and ``a3-3-live``)
``lab``         the chapter's lab app (labs/a3/workspace.ipynb)
``paths``       where the chapter's data is (data/a3/)
``tests``       the chapter's tests (the cases, the recording, its recorder on a real server, the pages,
                the exercises, the lab)
"""
