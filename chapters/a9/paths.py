"""Where chapter A9's data is: the one module that knows the layout of its part of ``data/``.

The chapter's evaluation is one recording: the live model on the task set under two designs and many
seeds, and the scripted oracle, every run a row of its ``results.jsonl`` (``prefixlab.eval.rows``).
"""
from __future__ import annotations

from prefixlab.paths import DATA, RECORDINGS

A9_DATA = DATA / "a9"
EVOLUTION = A9_DATA / "evolution.yml"   # the chapter's map
TASKS = A9_DATA / "tasks"               # the task set (A9·1)
EVALUATION_NAME = "a9-eval-qwen2.5-coder-0.5b-llamacpp"
EVALUATION = RECORDINGS / EVALUATION_NAME   # results.jsonl, the session files, manifest.json
