"""Which miniagent made a recording: one sha256 over its source.

A recording's requests are what miniagent's code builds (prompt, tools, history), so a recording
is only reproducible with the miniagent that made it. Its provenance names that code::

    "agent": {"package": "miniagent", "source_sha256": "3f2a…", "files": 17}

The hash covers every ``miniagent/**/*.py``, sorted by path relative to the package's parent
(``miniagent/loop.py`` …); for each file it takes the path, its length and its bytes, with
separators, so moving text from one file to another changes the hash too. It hashes the package
that is imported, i.e. the code that is running. ``tests/test_replay.py`` proves that today's code
still sends every shipped recording's requests byte for byte.

A hash alone cannot be looked up, so the provenance also pins the code to git (when the package
lives in a git checkout)::

    "source_tree": "<git tree hash of miniagent/ at HEAD>", "source_commit": "<HEAD>",
    "source_tree_basis": "source_sha256"   # miniagent/ had no uncommitted change: the tree is the code
                       | "uncommitted"     # it had: the tree is HEAD's, the running code differs

A reader checks it with ``git rev-parse <source_commit>:miniagent``; tests/test_agent_provenance.py
does so for every shipped recording (scripts/pin_agent_source.py pinned the older ones).

    python -m prefixlab.recording.agent_source        # the hash of the miniagent imported here
"""
from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import miniagent

PACKAGE = "miniagent"


def source_files(package_dir: Path | None = None) -> list[tuple[str, Path]]:
    """(relative path with forward slashes, file) of every .py file of the package, sorted by path."""
    package_dir = Path(miniagent.__file__).resolve().parent if package_dir is None else package_dir
    files = [(path.relative_to(package_dir.parent).as_posix(), path) for path in package_dir.rglob("*.py")]
    return sorted(files)


def source_sha256(package_dir: Path | None = None) -> str:
    """sha256 over (path, length, bytes) of every source file, in path order."""
    digest = hashlib.sha256()
    for rel, path in source_files(package_dir):
        data = path.read_bytes()
        digest.update(rel.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        digest.update(data)
    return digest.hexdigest()


def git_source(package_dir: Path | None = None) -> dict:
    """``source_tree``/``source_commit``/``source_tree_basis`` of the package's git checkout, or {}
    when it is not in one (an installed copy): then only the hash is recorded."""
    package_dir = Path(miniagent.__file__).resolve().parent if package_dir is None else package_dir

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=package_dir.parent, check=True, capture_output=True,
                              text=True, timeout=30).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        tree = git("rev-parse", f"HEAD:{package_dir.name}")
        dirty = git("status", "--porcelain", "--untracked-files=all", "--", package_dir.name)
    except (OSError, subprocess.SubprocessError):
        return {}
    changed = any(line.endswith(".py") for line in dirty.splitlines())
    return {"source_tree": tree, "source_commit": commit,
            "source_tree_basis": "uncommitted" if changed else "source_sha256"}


def agent_provenance(package_dir: Path | None = None) -> dict:
    """The ``provenance.agent`` part of a recording's manifest."""
    return {"package": PACKAGE, "source_sha256": source_sha256(package_dir),
            "files": len(source_files(package_dir)), **git_source(package_dir)}


if __name__ == "__main__":
    info = agent_provenance()
    print(f"{info['package']}: {info['files']} files, source sha256 {info['source_sha256']}")
