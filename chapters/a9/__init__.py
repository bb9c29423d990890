"""Chapter A9 评测 agent: the code only its lessons use (pages: book/a9/, data: data/a9/).

The instrument itself is generic and lives in prefixlab: ``python -m prefixlab eval OUT``
(``prefixlab.eval``). This package holds what the chapter records with it. Each subpackage maps its
own modules in its docstring (tests/test_chapter_layout.py checks every map against the files, exactly).

``figures``     what the lessons draw and compute from the shipped evaluation (A9·1: the task set, results per task)
``exercises``   the exercise checkers, one module per lesson
``experiments`` what the chapter records (A9·1: the live model on the task set under two designs, and the oracle)
``paths``       where the chapter's data is (data/a9/tasks/, the shipped evaluation)
``tests``       the chapter's tests (its pages and exercises)
"""
