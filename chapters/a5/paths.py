"""Where chapter A5's data is: the one module that knows the layout of its part of ``data/``.

The generic paths (recordings, tokenizer, chat template, the toy repository) are in
``prefixlab.paths``; this module adds the chapter's experiments.
"""
from __future__ import annotations

from prefixlab.paths import DATA

A5_DATA = DATA / "a5"
# The experiments' sessions work on the toy repository (prefixlab.paths.TOY_REPO) with an overlay that
# adds a week of temperature readings (readings/*.csv): files long enough to fill a small context.
REPO_OVERLAY = A5_DATA / "repo-overlay"
OVERFLOW_DIR = A5_DATA / "overflow"              # A5·1 (a prompt over the server's context): the script
MASKING_DIR = A5_DATA / "masking"                # A5·2 (masking old tool outputs): the script
TRIGGERS_DIR = A5_DATA / "triggers"              # A5·1 (when to compact) and A5·4 (the summary call): the script
LAYERS_DIR = A5_DATA / "layers"                  # A5·3 (what summaries keep, layer after layer): the script
