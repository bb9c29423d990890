"""Chapter A9's exercise checkers, one module per lesson. A checker computes its answer from the task set
or the shipped evaluation (or from the formula it asks about), never stores it, and prints it only once
the reader's answer is right.

``a9_1``   A9·1: which hidden tests fail on a task's starting workspace; the why of a damaged workspace; a design's passes
``a9_2``   A9·2: runs needed before 0 passes means "rarely"; the seed-to-seed range of one sweep
``a9_3``   A9·3: tokens per solved task at the top of the pass rate's interval; Kimi's reads per run
"""
