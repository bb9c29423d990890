"""Chapter A7 子 agent: the code only its lessons use (pages: book/a7/, labs: labs/a7/, data: data/a7/).

Each subpackage maps its own modules in its docstring (tests/test_chapter_layout.py checks every map
against the files, exactly); this map says what each part is for.

``figures``     what the lessons draw and compute from their recordings (A7·1 to A7·4)
``exercises``   the exercise checkers, one module per lesson (A7·4 has two: review and parallel)
``experiments`` the lessons' recorded experiments, registered for ``python -m prefixlab record NAME``,
                and the recorder they share
``lab``         the lab's app (plain state for tests, an ipywidgets layer for labs/a7/)
``paths``       where the chapter's data is (data/a7/: the script, the 30 plugins, the map)
``tests``       the chapter's tests (its pages, figures, exercises and recorders)

miniagent's part is ``miniagent/children.py`` (the spawn_agent tool).
"""
