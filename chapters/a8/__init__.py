"""Chapter A8 整单账单: the code only its lessons use (pages: book/a8/, labs: labs/a8/, data: data/a8/).

The instrument itself is generic and lives in prefixlab: ``python -m prefixlab bill PATH``
(``prefixlab.presenting.bill``). This package holds what the lessons draw and ask with it.

``figures``     what the lessons draw from the shipped recordings: ``usage`` (A8·1: one run booked
                OpenAI style and Anthropic style, the naive sum's double count), ``ledger`` (A8·2: the
                ledger of a session tree next to a tally of the context now), ``provenance`` (the 口径 note)
``exercises``   the exercise checkers, one module per lesson: ``a8_1``, ``a8_2``
``lab``         the lab's helpers: ``your_bill`` (the bill of a shipped recording or of your own session
                file, and the lab's checkers)
``experiments`` what the chapter records: ``whole_task`` (A8·3, ``a8-3``: one complete task with skills,
                memory, a compaction and a child; the same task under a token budget)
``paths``       where the chapter's data is (data/a8/: the map, A8·3's script)
``tests``       the chapter's tests (its figures, pages, exercises and lab)
"""
