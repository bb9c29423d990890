"""Which miniagent made a recording: one sha256 over its source.

A recording's requests are what miniagent's code builds (prompt, tools, history), so a recording
is only reproducible with the miniagent that made it. Its provenance names that code::

    "agent": {"package": "miniagent", "source_sha256": "3f2a…", "files": 17}

The hash covers every ``miniagent/**/*.py``, sorted by path relative to the package's parent
(``miniagent/loop.py`` …); for each file it takes the path, its length and its bytes, with
separators, so moving text from one file to another changes the hash too. It hashes the package
that is imported, i.e. the code that is running. ``tests/test_replay.py`` proves that today's code
still sends every shipped recording's requests byte for byte.

    python -m prefixlab.recording.agent_source        # the hash of the miniagent imported here
"""
from __future__ import annotations

import hashlib
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


def agent_provenance(package_dir: Path | None = None) -> dict:
    """The ``provenance.agent`` part of a recording's manifest."""
    return {"package": PACKAGE, "source_sha256": source_sha256(package_dir),
            "files": len(source_files(package_dir))}


if __name__ == "__main__":
    info = agent_provenance()
    print(f"{info['package']}: {info['files']} files, source sha256 {info['source_sha256']}")
