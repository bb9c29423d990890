"""Chapter A4 提示词的形状与前缀缓存: the code only its lessons use (pages: book/a4/, data: data/a4/).

``experiments`` the lessons' recorded experiments: ``one_token`` (A4·1, registered as ``a4-1``: one token
                changed at position p, swept over a prompt of about 2,000 tokens)
``figures``     what the lessons draw from their recordings: ``one_token`` (A4·1: the read at every p, per rule)
``exercises``   the exercise checkers, one module per lesson: ``a4_1``
``paths``       where the chapter's data is (data/a4/: the sweep's settings, a longer AGENTS.md)
``tests``       the chapter's tests (its recording, its recorder on a real server, its page and exercises)
"""
