"""Where chapter A6's data is: the one module that knows the layout of its part of ``data/``.

The generic paths (recordings, tokenizer, chat template, prices, the toy repository) are in
``prefixlab.paths``; this module adds the chapter's experiments and lesson data.
"""
from __future__ import annotations

from prefixlab.paths import DATA

A6_DATA = DATA / "a6"
# The experiments: each a script and tasks; their sessions work on the toy repository (prefixlab.paths.TOY_REPO),
# T12's with an overlay of the files it changes (a CHANGELOG, a check for it, two rules in AGENTS.md).
T10_DIR = A6_DATA / "t10"                        # T10 (lesson A6·2, when memory reaches the prompt): script, tasks
T11_DIR = A6_DATA / "t11"                        # T11 (lesson A6·1, where a human rule lives): script, tasks
T12_DIR = A6_DATA / "t12"                        # T12 (lesson A6·3, skills: inline or an index): script, tasks
T12_OVERLAY = T12_DIR / "repo-overlay"           # the files of T12's repository that differ from the toy repository
T13_DIR = A6_DATA / "t13"                        # T13 (lesson A6·4, the session is a tree): the branches
T14_DIR = A6_DATA / "t14"                        # T14 (side lesson A6·R, memory file vs retrieval): notes, script
SKILLS = A6_DATA / "skills"                      # Hermes's skills manifest and a few texts; our own skills (ours/)
RECALL_DIR = A6_DATA / "recall"                  # A6·R's small hand-labelled recall set (tasks x notes they need)
LOADER_TREE = A6_DATA / "loader-tree"            # AGENTS.md at several levels (lesson A6·1's loader explorer)
A6_EVOLUTION = A6_DATA / "evolution.yml"         # the chapter's evolution map (the evolution figure)
