"""Where chapter A8's data is: the one module that knows the layout of its part of ``data/``.

The chapter records nothing of its own yet: it bills the shipped recordings (``prefixlab.paths.RECORDINGS``).
"""
from __future__ import annotations

from prefixlab.paths import DATA

A8_DATA = DATA / "a8"
EVOLUTION = A8_DATA / "evolution.yml"   # the chapter's map
