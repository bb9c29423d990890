"""Where chapter A3's data is: the one module that knows the layout of its part of ``data/``.

The generic paths (recordings, tokenizer, chat template, the toy repository) are in ``prefixlab.paths``.
"""
from __future__ import annotations

from prefixlab.paths import DATA, RECORDINGS

A3_DATA = DATA / "a3"
A32_DIR = A3_DATA / "a3-2"                       # A3·2 (approval): the scripted task and the five policies
A32_RECORDING = RECORDINGS / "a3-2-approval-smollm2-llamacpp"
A33_DIR = A3_DATA / "a3-3"                       # A3·3 (prompt injection): the injected file, the scripts
A33_RECORDING = RECORDINGS / "a3-3-injection-smollm2-llamacpp"
A33_LIVE_RECORDING = RECORDINGS / "a3-3-live-qwen2.5-coder-0.5b-llamacpp"
