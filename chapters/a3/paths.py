"""Where chapter A3's data is: the one module that knows the layout of its part of ``data/``.

The generic paths (recordings, tokenizer, chat template, the toy repository) are in ``prefixlab.paths``.
"""
from __future__ import annotations

from prefixlab.paths import DATA

A3_DATA = DATA / "a3"
