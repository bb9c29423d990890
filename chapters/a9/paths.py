"""Where chapter A9's data is: the task set (data/a9/tasks/), the chapter's map and the shipped evaluation.

The chapter's evaluation is one recording: the live model on the task set under two designs and many
seeds, and the scripted oracle, every run a row of its ``results.jsonl`` (``prefixlab.eval.rows``).
"""
from __future__ import annotations

from prefixlab.eval.tasks import TASKS  # noqa: F401 (the chapter's task set)
from prefixlab.paths import DATA, RECORDINGS

A9_DATA = DATA / "a9"
EVOLUTION = A9_DATA / "evolution.yml"   # the chapter's map
EVALUATION_NAME = "a9-eval-qwen2.5-coder-0.5b-llamacpp"
EVAL = RECORDINGS / EVALUATION_NAME     # the live model, two designs, the oracle: results.jsonl, sessions, manifest
EVALUATION = EVAL
