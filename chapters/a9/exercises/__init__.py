"""Chapter A9's exercise checkers, one module per lesson. A checker computes its answer from the task set
or the shipped evaluation, never stores it, and prints it only once the reader's answer is right.

``a9_1``  A9·1: which hidden tests fail on a task's starting workspace; the why of a damaged workspace; a design's passes
"""
