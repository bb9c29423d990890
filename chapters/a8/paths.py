"""Where chapter A8's data is: the one module that knows the layout of its part of ``data/``.

The chapter bills the shipped recordings (``prefixlab.paths.RECORDINGS``) and records A8·3's task.
"""
from __future__ import annotations

from prefixlab.paths import DATA

A8_DATA = DATA / "a8"
EVOLUTION = A8_DATA / "evolution.yml"   # the chapter's map
WHOLE_TASK_DIR = A8_DATA / "whole-task"  # A8·3 (one complete task): the script
WATERFALL_DIR = A8_DATA / "waterfall"    # A8·3's waterfall: the same task under five designs
SKILLS = DATA / "a6" / "skills" / "ours"  # the course's own skills (written for A6·3), offered to A8·3's agent
