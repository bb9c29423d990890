"""Chapter A8 整单账单: the code only its lessons use (pages: book/a8/, labs: labs/a8/, data: data/a8/).

The instrument itself is generic and lives in prefixlab: ``python -m prefixlab bill PATH``
(``prefixlab.presenting.bill``). This package holds what the lessons draw and ask with it. Each
subpackage maps its own modules in its docstring (tests/test_chapter_layout.py checks every map
against the files, exactly).

``figures``     what the lessons draw from the shipped recordings (A8·1 usage in two conventions, A8·2 the
                ledger, A8·3 the whole bill and its waterfall, the 口径 note)
``exercises``   the exercise checkers, one module per lesson
``lab``         the lab's helpers: the bill of a shipped recording or of your own session file
``experiments`` what the chapter records (A8·3: one complete task, under a budget, under five designs)
``paths``       where the chapter's data is (data/a8/: the map, A8·3's script)
``tests``       the chapter's tests (its figures, pages, exercises and lab)
"""
