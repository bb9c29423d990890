"""Where chapter A1's data is: the one module that knows the layout of its part of ``data/``.

The generic paths (recordings, tokenizer, chat template, the toy repository) are in ``prefixlab.paths``.
"""
from __future__ import annotations

from prefixlab.paths import DATA, RECORDINGS

A1_DATA = DATA / "a1"
A1_SCRIPT = A1_DATA / "script.yml"                    # the task, the system prompt, the scripted turns
A1_RECORDING = RECORDINGS / "a1-loop-smollm2-llamacpp"
