"""Chapter A7 子 agent: the code only its lessons use (pages: book/a7/, labs: labs/a7/, data: data/a7/).

``figures``     what the lessons draw and compute from their recordings
  ``delegation``   A7·1 and A7·2: a parent and its children request by request, the child's effect on the parent's cache
``exercises``   the exercise checkers, one module per lesson: ``a7_1``, ``a7_2``
``experiments`` the lessons' recorded experiments, registered as ``a7-1``, ``a7-2`` (``python -m prefixlab record
                NAME``): ``explore`` (A7·1), ``fresh_or_fork`` (A7·2), their shared recorder ``delegation``
``lab``         the lab's app (plain state for tests, an ipywidgets layer for labs/a7/)
  ``children``     send one child agent offline (a pretend model), look at its files and the ledger
``paths``       where the chapter's data is (data/a7/: the script, the 30 plugins, the map)
``tests``       the chapter's tests (its pages, figures, exercises and recorders)

miniagent's part is ``miniagent/children.py`` (the spawn_agent tool).
"""
