"""Pin each shipped recording's miniagent to a git tree a reader can look up.

For every ``data/recordings/*/manifest.json`` it finds, in this repository's history, the commit
that added the manifest and the miniagent trees of the commits up to it; the tree whose files
hash to the stored ``provenance.agent.source_sha256`` (the recorder's hash, see
prefixlab/recording/agent_source.py) is the code the recording was made with. It writes::

    "source_tree": "<git tree hash of miniagent/>",  "source_commit": "<a commit with that tree>",
    "source_tree_basis": "source_sha256"    # the tree's files hash to source_sha256
                       | "recording_commit" # no committed tree does: the tree at the commit
                                            # that added the recording (the closest honest pin)
    "recording_commit": "<the commit that added the manifest>"

Every commit named is on ``main`` (the search walks main's history only).

    .venv/bin/python scripts/pin_agent_source.py [--check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout.strip()


def tree_source_sha256(commit: str) -> str:
    """agent_source.source_sha256 computed from the miniagent files of a commit."""
    listing = git("ls-tree", "-r", "--full-tree", commit, "--", "miniagent").splitlines()
    files = sorted((line.split("\t", 1)[1], line.split()[2]) for line in listing
                   if line.split("\t", 1)[1].endswith(".py"))
    digest = hashlib.sha256()
    for rel, blob in files:
        data = subprocess.run(["git", "cat-file", "blob", blob], cwd=ROOT, check=True,
                              capture_output=True).stdout
        digest.update(rel.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        digest.update(data)
    return digest.hexdigest()


def pin(manifest_path: Path, cache: dict[str, str]) -> dict:
    rel = manifest_path.relative_to(ROOT).as_posix()
    added = git("log", "--diff-filter=A", "--format=%H", "--", rel).splitlines()[-1]
    agent = json.loads(manifest_path.read_text(encoding="utf-8"))["provenance"]["agent"]
    # First the miniagent states up to the commit that added the recording (newest first), then
    # the later ones (oldest first): some hashes were stamped after the recording was committed.
    before = git("log", "--format=%H", added, "--", "miniagent").splitlines()
    after = git("log", "--reverse", "--format=%H", f"{added}..main", "--", "miniagent").splitlines()
    for commit in before + after:
        if commit not in cache:
            cache[commit] = tree_source_sha256(commit)
        if cache[commit] == agent["source_sha256"]:
            return {"source_tree": git("rev-parse", f"{commit}:miniagent"), "source_commit": commit,
                    "source_tree_basis": "source_sha256", "recording_commit": added}
    return {"source_tree": git("rev-parse", f"{added}:miniagent"), "source_commit": added,
            "source_tree_basis": "recording_commit", "recording_commit": added}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print, do not write")
    args = parser.parse_args()
    cache: dict[str, str] = {}
    for path in sorted((ROOT / "data/recordings").glob("*/manifest.json")):
        fields = pin(path, cache)
        print(f"{path.parent.name}: {fields['source_tree_basis']} tree {fields['source_tree'][:12]} "
              f"at {fields['source_commit'][:12]}")
        if not args.check:
            text = path.read_text(encoding="utf-8")
            manifest = json.loads(text)
            manifest["provenance"]["agent"].update(fields)
            ending = "\n" if text.endswith("\n") else ""
            # The layout prefixlab/recording/format.py writes.
            path.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + ending,
                            encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
