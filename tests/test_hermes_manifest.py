"""data/a6/skills/hermes-manifest.json and the script that makes it (scripts/hermes_skills_manifest.py).

The shipped manifest must agree with the texts stored next to it and with miniagent's index; the
script must give the same rows from a git copy of a repository (a tiny one made here).
"""
import hashlib
import importlib.util
import json
import shutil
import subprocess

import pytest

from miniagent.skills import DESCRIPTION_CAP, index_entry, parse_skill
from prefixlab.cache.tokenizer import load_tokenizer, text_token_ids
from chapters.a6.paths import SKILLS
from prefixlab.paths import REPO_ROOT

MANIFEST = json.loads((SKILLS / "hermes-manifest.json").read_text(encoding="utf-8"))
spec = importlib.util.spec_from_file_location("hermes_skills_manifest", REPO_ROOT / "scripts" / "hermes_skills_manifest.py")
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)


def test_the_shape_the_lesson_reads():
    assert set(MANIFEST["source"]) == {"repo", "commit", "licence", "licence_file", "generated_by", "generated_on"}
    assert MANIFEST["source"]["commit"] == script.PIN and MANIFEST["source"]["licence"] == "MIT"
    assert MANIFEST["tokenizer"] == "data/tokenizers/smollm2-135m-instruct.tokenizer.json"
    assert MANIFEST["index"] == {"description_cap": DESCRIPTION_CAP}
    assert len(MANIFEST["skills"]) == 174
    for row in MANIFEST["skills"]:
        assert set(row) == {"name", "description", "path", "sha256", "characters", "tokens", "index_tokens"}
        assert row["path"].endswith("/SKILL.md") and row["tokens"] > row["index_tokens"] > 0


def test_the_stored_texts_are_the_counted_ones():
    tok = load_tokenizer()
    rows = {r["path"]: r for r in MANIFEST["skills"]}
    stored = MANIFEST["stored"]["paths"]
    assert stored and (SKILLS / "hermes" / "LICENSE").read_text().startswith("MIT License")
    assert sum(rows[p]["tokens"] for p in stored) <= MANIFEST["stored"]["window"]
    for path in stored:
        data = (SKILLS / "hermes" / path).read_bytes()
        text = data.decode("utf-8")
        assert hashlib.sha256(data).hexdigest() == rows[path]["sha256"]
        assert len(text_token_ids(tok, text)) == rows[path]["tokens"] and len(text) == rows[path]["characters"]
        skill = parse_skill(text, path, SKILLS / "hermes" / path)
        assert len(text_token_ids(tok, index_entry(skill) + "\n")) == rows[path]["index_tokens"]
    # the smallest ones, smallest first
    by_size = sorted(MANIFEST["skills"], key=lambda r: (r["tokens"], r["path"]))
    assert stored == [r["path"] for r in by_size[:len(stored)]]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_script_reads_every_skill_md_of_a_commit(tmp_path):
    repo = tmp_path / "repo"
    (repo / "skills" / "a").mkdir(parents=True)
    (repo / "skills" / "a" / "SKILL.md").write_text("---\nname: a\ndescription: Say a.\n---\n\nbody\n")
    (repo / "optional" / "b").mkdir(parents=True)
    (repo / "optional" / "b" / "SKILL.md").write_text("no front matter\n")
    (repo / "skills" / "a" / "notes.md").write_text("not a skill\n")
    (repo / "LICENSE").write_text("MIT License\n\nCopyright\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "x"], check=True)
    commit = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    (repo / "skills" / "a" / "SKILL.md").write_text("changed after the commit\n")  # the work tree does not count
    manifest, files = script.build(repo, commit)
    assert manifest["source"]["commit"] == commit and manifest["source"]["licence"] == "MIT"
    rows = {r["path"]: r for r in manifest["skills"]}
    assert list(rows) == ["optional/b/SKILL.md", "skills/a/SKILL.md"]
    assert rows["skills/a/SKILL.md"]["name"] == "a" and rows["skills/a/SKILL.md"]["index_tokens"] > 0
    assert "does not start with a '---'" in rows["optional/b/SKILL.md"]["error"]
    assert script.smallest_fitting(manifest["skills"], 10**6) == [rows["skills/a/SKILL.md"]]
    assert script.smallest_fitting(manifest["skills"], 1) == []
