"""The system prompt: three blocks in a fixed order.

1. the base prompt (ours, the same for every repository),
2. the repository's AGENTS.md files (written by people, change rarely;
   found by ``agents_md.py``),
3. ``# Memory from previous sessions`` (written by the agent itself).

With skills (skills.py) a fourth block, the skills index, sits right after the
base prompt (``skills_at="stable"``) or right after AGENTS.md (``"volatile"``).

The block most likely to change goes last, so a change there leaves the
first two blocks as a reusable prefix for the server's prompt cache.
One design (``--mode after-tools``, see variants/memory_timing.py) moves the memory out of
the system prompt; it then has the first two blocks only.
"""
from __future__ import annotations

from dataclasses import dataclass

from .agents_md import read_agents_md  # noqa: F401 (re-exported: callers import it from here)

BASE_PROMPT = """\
You are miniagent, a small coding agent working inside one repository.
Use the tools to look at files and run commands before you answer; do not guess.
Keep changes small and explain what you did in a short final answer.
When you learn something that later sessions will need (how to run the tests,
a convention of this repository), save it with the `remember` tool."""

AGENTS_HEADER = "# Repository instructions (AGENTS.md)"
MEMORY_HEADER = "# Memory from previous sessions"
EMPTY_MEMORY = "(nothing saved yet)"


@dataclass(frozen=True)
class SystemPrompt:
    """The three blocks, kept apart so tools can tell where each one starts."""

    base: str
    agents_md: str
    memory: str | None  # None: the memory is elsewhere in the request (mode after-tools)
    skills: str = ""  # the skills index (or, naively, every skill's text); see skills.py
    skills_at: str = "stable"  # "stable": right after the base prompt; "volatile": after AGENTS.md

    def blocks(self) -> list[tuple[str, str]]:
        """(name, text) pairs in prompt order. Each block carries its own leading
        blank line, so ``"".join`` of the texts is exactly ``self.text`` and a
        tool can find where every block starts."""
        out = [("base", self.base)]
        skills = [("skills", f"\n\n{self.skills}")] if self.skills else []
        if self.skills_at == "stable":
            out += skills
        if self.agents_md:
            out.append(("agents_md", f"\n\n{AGENTS_HEADER}\n\n{self.agents_md}"))
        if self.skills_at == "volatile":  # the front of the band that may change: before the memory
            out += skills
        if self.memory is not None:
            out.append(("memory_header", f"\n\n{MEMORY_HEADER}\n\n"))
            out.append(("memory_body", self.memory or EMPTY_MEMORY))
        return out

    @property
    def text(self) -> str:
        return "".join(text for _, text in self.blocks())

