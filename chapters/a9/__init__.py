"""Chapter A9 评测 agent: the code only its lessons use (pages: book/a9/, labs: labs/a9/, data: data/a9/).

The instrument itself is generic and lives in prefixlab: ``python -m prefixlab eval OUT``
(``prefixlab.eval``). This package holds what the chapter records with it. Each subpackage maps its
own modules in its docstring (tests/test_chapter_layout.py checks every map against the files, exactly).

``experiments`` what the chapter records (A9·1: the live model on the task set under two designs, and the oracle)
``figures``     what the lessons draw from the shipped evaluation (A9·1 the task set and results per task, A9·2 pass rates and intervals, A9·3 the price per solved task)
``exercises``   the exercise checkers, one module per lesson
``lab``         the lab's helpers: pick tasks, designs and seeds of recorded runs
``paths``       where the chapter's data is (data/a9/: the map, the task set; the evaluation's recording)
``tests``       the chapter's tests (its pages, figures, exercises and lab)
"""
