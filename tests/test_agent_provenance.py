"""Each shipped recording names a miniagent tree that exists in this repository's history.

The check is independent of prefixlab.recording: it asks git for the tree and hashes the tree's
files itself (the recipe written in data/recordings/FORMAT.md)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MANIFESTS = sorted((ROOT / "data/recordings").glob("*/manifest.json"))
BASES = {"source_sha256", "recording_commit", "uncommitted"}


def git(*args: str, binary: bool = False):
    out = subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, timeout=60).stdout
    return out if binary else out.decode().strip()


def _history_reason() -> str | None:
    try:
        if git("rev-parse", "--is-shallow-repository") == "true":
            return "shallow clone: the commits the recordings name are not fetched (git fetch --unshallow)"
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout: provenance trees cannot be looked up"
    return None


needs_history = pytest.mark.skipif(_history_reason() is not None, reason=_history_reason() or "")


def tree_hash_of_files(commit: str) -> str:
    """sha256 over (path, length, bytes) of miniagent/**/*.py at a commit, sorted by path."""
    rows = git("ls-tree", "-r", "--full-tree", commit, "--", "miniagent").splitlines()
    files = sorted((row.split("\t", 1)[1], row.split()[2]) for row in rows if row.endswith(".py"))
    digest = hashlib.sha256()
    for path, blob in files:
        data = git("cat-file", "blob", blob, binary=True)
        digest.update(path.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return digest.hexdigest()


def provenance_problems(rel: str, agent: dict) -> list[str]:
    """What is wrong with one manifest's provenance.agent, checked against git history."""
    problems = []
    for key in ("source_tree", "source_commit", "source_tree_basis"):
        if key not in agent:
            problems.append(f"{rel}: provenance.agent.{key} missing (scripts/pin_agent_source.py)")
    if problems:
        return problems
    if agent["source_tree_basis"] not in BASES:
        problems.append(f"{rel}: source_tree_basis {agent['source_tree_basis']!r} not one of {sorted(BASES)}")
    try:
        tree = git("rev-parse", f"{agent['source_commit']}:miniagent")
    except subprocess.CalledProcessError:
        return [f"{rel}: source_commit {agent['source_commit']} is not in this repository"]
    if tree != agent["source_tree"]:
        problems.append(f"{rel}: miniagent at {agent['source_commit'][:12]} is tree {tree[:12]}, "
                        f"manifest says {agent['source_tree'][:12]}")
    if agent["source_tree_basis"] == "source_sha256" and tree_hash_of_files(agent["source_commit"]) != agent["source_sha256"]:
        problems.append(f"{rel}: the files of tree {tree[:12]} do not hash to source_sha256")
    if "recording_commit" in agent:
        added = git("log", "--diff-filter=A", "--format=%H", "--", rel).splitlines()
        if not added or added[-1] != agent["recording_commit"]:
            problems.append(f"{rel}: recording_commit is not the commit that added the manifest")
    return problems


@needs_history
@pytest.mark.parametrize("path", MANIFESTS, ids=[p.parent.name for p in MANIFESTS])
def test_manifest_names_a_committed_miniagent_tree(path):
    rel = path.relative_to(ROOT).as_posix()
    agent = json.loads(path.read_text(encoding="utf-8"))["provenance"]["agent"]
    assert provenance_problems(rel, agent) == []


@needs_history
def test_a_wrong_tree_or_commit_is_caught():
    path = MANIFESTS[0]
    rel = path.relative_to(ROOT).as_posix()
    agent = json.loads(path.read_text(encoding="utf-8"))["provenance"]["agent"]
    wrong_tree = {**agent, "source_tree": "0" * 40}
    assert any("manifest says 000000000000" in p for p in provenance_problems(rel, wrong_tree))
    wrong_commit = {**agent, "source_commit": "f" * 40}
    assert any("not in this repository" in p for p in provenance_problems(rel, wrong_commit))
    wrong_hash = {**agent, "source_sha256": "0" * 64, "source_tree_basis": "source_sha256"}
    assert any("do not hash" in p for p in provenance_problems(rel, wrong_hash))


def test_every_shipped_hash_is_pinned_or_says_why_not():
    bases = [json.loads(p.read_text(encoding="utf-8"))["provenance"]["agent"].get("source_tree_basis")
             for p in MANIFESTS]
    assert len(MANIFESTS) >= 37 and set(bases) <= BASES, bases


@needs_history
def test_new_recordings_get_the_git_fields():
    from prefixlab.recording.agent_source import agent_provenance

    agent = agent_provenance()
    assert agent["source_commit"] == git("rev-parse", "HEAD")
    assert agent["source_tree"] == git("rev-parse", "HEAD:miniagent")
    assert agent["source_tree_basis"] in {"source_sha256", "uncommitted"}
