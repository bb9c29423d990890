"""AGENTS.md discovery: one file per directory, from the repository root down.

The repository root is the nearest directory at or above the workspace that
holds ``.git`` (a directory, or a file in a worktree); outside any repository
it is the workspace itself. Each directory from the root down to the workspace
may have one AGENTS.md. They are concatenated root-first, so the instructions
closest to the work come last.

- One file: its text alone, exactly as before discovery existed (recorded
  prompts depend on those bytes).
- Several files: each starts with a line naming its path from the root,
  ``--- services/api/AGENTS.md ---``, so the model can tell the levels apart.
- The result is capped at ``AGENTS_MD_CAP`` bytes; a marker line says how many
  bytes were cut, so a cut is never silent. ``over_the_cap`` names each file
  the cap cuts short or leaves out (the command line prints those lines).
- A file that is not UTF-8 is read with U+FFFD for the bad bytes and a note
  saying so: one bad file should not stop the agent.
"""
from __future__ import annotations

from pathlib import Path

AGENTS_MD = "AGENTS.md"
AGENTS_MD_CAP = 32 * 1024  # bytes of AGENTS.md text in the prompt (Codex's default for its project docs)


def find_repo_root(workspace: Path) -> Path:
    """The nearest directory at or above ``workspace`` that holds ``.git``; else the workspace."""
    for directory in (workspace, *workspace.parents):
        if (directory / ".git").exists():
            return directory
    return workspace


def agents_md_files(workspace: Path | str) -> tuple[Path, list[Path]]:
    """The repository root and the AGENTS.md files from there down to ``workspace``, root first."""
    workspace = Path(workspace).resolve()
    root = find_repo_root(workspace)
    levels = [workspace, *workspace.parents]
    levels = levels[: levels.index(root) + 1][::-1]  # root, ..., workspace
    return root, [d / AGENTS_MD for d in levels if (d / AGENTS_MD).is_file()]


def read_one(path: Path, name: str) -> str:
    """One file's text, stripped; bad UTF-8 becomes U+FFFD and a note says so."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace").strip()
        return f"{text}\n\n[note: {name} is not valid UTF-8; undecodable bytes are shown as \ufffd]"


def cap_bytes(text: str, cap: int = AGENTS_MD_CAP) -> str:
    """``text`` cut to ``cap`` UTF-8 bytes, plus a marker saying how much was cut."""
    data = text.encode("utf-8")
    if len(data) <= cap:
        return text
    kept = data[:cap].decode("utf-8", errors="ignore")  # never half a character
    cut = len(data) - len(kept.encode("utf-8"))
    return f"{kept}\n\n[... {cut} bytes of AGENTS.md cut: the limit is {cap} bytes ...]"


def labelled_texts(workspace: Path | str) -> dict[str, str]:
    """Name (path from the root) -> text of each AGENTS.md with text, root first."""
    root, files = agents_md_files(workspace)
    texts = {}
    for path in files:
        name = str(path.relative_to(root))
        if text := read_one(path, name):  # an empty file adds nothing
            texts[name] = text
    return texts


def sections(texts: dict[str, str]) -> list[tuple[str, str]]:
    """(name, the text it adds) per file: none or one file adds its text alone; several, a label each."""
    if len(texts) > 1:
        return [(name, f"--- {name} ---\n\n{text}") for name, text in texts.items()]
    return list(texts.items())


def read_agents_md(workspace: Path | str, cap: int = AGENTS_MD_CAP) -> str:
    """The AGENTS.md text for the prompt, or an empty string when there is none."""
    return cap_bytes("\n\n".join(text for _, text in sections(labelled_texts(workspace))), cap)


def over_the_cap(workspace: Path | str, cap: int = AGENTS_MD_CAP) -> list[str]:
    """One line for each AGENTS.md file the cap cuts short or leaves out, naming it."""
    parts = sections(labelled_texts(workspace))
    data = "\n\n".join(text for _, text in parts).encode("utf-8")
    if len(data) <= cap:
        return []
    kept = len(data[:cap].decode("utf-8", errors="ignore").encode("utf-8"))  # as cap_bytes cuts
    lines, start, limit = [], 0, f"(the AGENTS.md limit is {cap} bytes)"
    for name, text in parts:
        end = start + len(text.encode("utf-8"))
        if start >= kept:
            lines.append(f"{name}: left out {limit}")
        elif end > kept:
            lines.append(f"{name}: cut after {kept - start} of {end - start} bytes {limit}")
        start = end + 2  # the blank line between two files
    return lines
