"""Chapter A3 工作区:让它动手,又不让它闯祸: the code only its lessons use (pages: book/a3/, data: data/a3/).

``escapes``     A3·1's cases, runnable and measured: paths that try to leave the workspace, commands
                that never end, print for ever, leave the group with setsid or read a secret; each
                run the naive way, the process-group way and miniagent's way
``figures``     what the lessons draw from their measurements: ``escapes`` (A3·1: the command cases)
``exercises``   the exercise checkers, one module per lesson: ``a3_1``
``experiments`` the chapter's recorded experiments (none registered yet)
``paths``       where the chapter's data is (data/a3/)
``tests``       the chapter's tests (the cases, the chapter page, the exercises)
"""
