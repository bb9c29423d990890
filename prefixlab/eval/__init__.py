"""Evaluate an agent (chapter A9): a task set with hidden checks, a harness that runs each task in a
fresh copy of its workspace, and one result row per run.

``tasks``         load a task set (``data/a9/tasks/<id>/``: task.md, task.yml, check.py, workspace/)
``check_runner``  the hidden check, run in its own Python process (stdlib only)
``harness``       one (task, design, seed): a fresh workspace, miniagent, the check, a result row
``oracle``        a scripted policy that solves every task through miniagent's real tools
``cli``           ``python -m prefixlab eval``
``rows``          read and check a results file (``results.jsonl``): one Run per row, a bad row a clear error
``stats``         how sure a pass rate is: Wilson intervals, pass@k, the spread across seeds, two designs compared
"""
