"""Where chapter A4's data is: the one module that knows the layout of its part of ``data/``.

The generic paths (recordings, tokenizer, chat template, the toy repository) are in ``prefixlab.paths``.
"""
from __future__ import annotations

from prefixlab.paths import DATA, RECORDINGS

A4_DATA = DATA / "a4"
A41_DIR = A4_DATA / "a4-1"                       # A4·1 (the prefix cache from scratch): the sweep's settings
A41_OVERLAY = A41_DIR / "repo-overlay"           # a longer AGENTS.md over the toy repository's
A41_RECORDING = RECORDINGS / "a4-1-one-token-smollm2-llamacpp"
A42_DIR = A4_DATA / "a4-2"                       # A4·2 (what goes at the top): the scripted sessions
A42_RECORDING = RECORDINGS / "a4-2-volatile-top-smollm2-llamacpp"
A43_DIR = A4_DATA / "a4-3"                       # A4·3 (rewriting history): the scripted session
A43_RECORDING = RECORDINGS / "a4-3-rewrite-history-smollm2-llamacpp"
