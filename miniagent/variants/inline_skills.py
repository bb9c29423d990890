"""Lesson A6·3's naive design: every skill's whole SKILL.md in the system prompt.

The index (skills.py) replaces it; it stays here because the lesson measures what it costs
(the T12 recording's ``inline`` session, the skills lab). Pass ``lambda: inline(skills)`` where
an injection takes the skills block (modes.for_mode's ``skills``).
"""
from __future__ import annotations

from ..skills import SKILLS_HEADER, SkillSet

INLINE_INTRO = "The full text of every skill follows."


def inline(skills: SkillSet) -> str:
    """Every skill's whole SKILL.md in the system prompt: the naive design the index replaces."""
    found = skills.load()
    if not found:
        return ""
    texts = "\n\n".join(f"## {s.name} ({s.location})\n\n{s.text.strip()}" for s in found)
    return f"{SKILLS_HEADER}\n\n{INLINE_INTRO}\n\n{texts}"
