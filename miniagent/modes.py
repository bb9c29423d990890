"""The memory designs by name: what the CLI's ``--mode`` and the recordings' groups call them.

``frozen`` is miniagent's own design (injection.py); the others are lesson variants
(variants/). A recorder may build a design directly instead; this table is for choosing one
by its name.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from .injection import Frozen, MemoryInjection
from .memory import MemoryStore
from .variants.memory_timing import AfterTools, Append, Refresh
from .variants.retrieve_memory import Retrieve
from .variants.select_memory import Select

DESIGNS = {design.mode: design for design in (Refresh, Frozen, Append, AfterTools, Select, Retrieve)}
MODES = tuple(DESIGNS)


def for_mode(mode: str, base: str, agents_md: str, memory: MemoryStore,
             workspace: Path | None = None, skills: Callable[[], str] | None = None,
             skills_at: str = "stable") -> MemoryInjection:
    """The design called ``mode`` (the names of the CLI's ``--mode`` and of the recorded groups)."""
    if mode not in DESIGNS:
        raise ValueError(f"unknown memory mode {mode!r}; choose one of {', '.join(MODES)}")
    design = DESIGNS[mode](base, agents_md, memory, workspace)
    design.skills, design.skills_at = skills, skills_at
    return design
