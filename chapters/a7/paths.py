"""Where chapter A7's data is: the one module that knows the layout of its part of ``data/``.

The generic paths (recordings, tokenizer, chat template, the toy repository) are in ``prefixlab.paths``.
"""
from __future__ import annotations

from prefixlab.paths import DATA

A7_DATA = DATA / "a7"
# The experiments' sessions work on the toy repository (prefixlab.paths.TOY_REPO) with an overlay that
# adds 30 small plugins (plugins/*.py): enough files that reading them all fills a small context.
REPO_OVERLAY = A7_DATA / "repo-overlay"
DELEGATION_DIR = A7_DATA / "delegation"          # A7·1 and A7·2: the scripted policy (script.yml)
PARALLEL_DIR = A7_DATA / "parallel"              # A7·4 (parallel half): two children at once; one child past a slot
A7_EVOLUTION = A7_DATA / "evolution.yml"         # the chapter's evolution map
