"""Where chapter A6's data is: the one module that knows the layout of its part of ``data/``.

The generic paths (recordings, tokenizer, chat template, prices, the toy repository) are in
``prefixlab.paths``; this module adds the chapter's experiments and lesson data.
"""
from __future__ import annotations

from prefixlab.paths import DATA

T10_DIR = DATA / "t10"                           # T10 (lesson A6·2, when memory reaches the prompt): script, tasks, repo
T11_DIR = DATA / "t11"                           # T11 (lesson A6·1, where a human rule lives): the same parts
T12_DIR = DATA / "t12"                           # T12 (lesson A6·3, skills: inline or an index): the same parts
SKILLS = DATA / "skills"                         # Hermes's skills manifest and a few texts; our own skills (ours/)
T13_DIR = DATA / "t13"                           # T13 (lesson A6·4, the session is a tree): the branches
T14_DIR = DATA / "t14"                           # T14 (side lesson A6·R, memory file vs retrieval): notes, script
RECALL_DIR = DATA / "recall"                     # A6·R's small hand-labelled recall set (tasks x notes they need)
LOADER_TREE = DATA / "loader-tree"               # AGENTS.md at several levels (lesson A6·1's loader explorer)
A6_EVOLUTION = DATA / "a6-evolution.yml"         # the chapter's evolution map (prefixlab.presenting.evolution)
