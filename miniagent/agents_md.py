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
  bytes were cut, so a cut is never silent.
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


def read_agents_md(workspace: Path | str, cap: int = AGENTS_MD_CAP) -> str:
    """The AGENTS.md text for the prompt, or an empty string when there is none."""
    root, files = agents_md_files(workspace)
    texts = {}  # name -> text, root first
    for path in files:
        name = str(path.relative_to(root))
        if text := read_one(path, name):  # an empty file adds nothing
            texts[name] = text
    if len(texts) > 1:
        joined = "\n\n".join(f"--- {name} ---\n\n{text}" for name, text in texts.items())
    else:
        joined = "".join(texts.values())  # none or one: the text alone, no label
    return cap_bytes(joined, cap)
