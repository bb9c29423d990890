"""Make data/a6/skills/hermes-manifest.json: every SKILL.md Hermes Agent ships at a pinned commit.

    python scripts/hermes_skills_manifest.py GIT_DIR [--commit SHA] [--out FILE] [--store-window TOKENS]

GIT_DIR is a clone (or a bare copy, e.g. what the course's ``fetch`` tool gives) of
NousResearch/hermes-agent or of a fork that has the pinned commit. Nothing is read from the
network; every file is read from the commit with ``git show``, so the result does not depend on
a work tree.

For each SKILL.md (any path whose file name is SKILL.md) the manifest keeps: the front matter's
name and description (parsed by miniagent's own skills loader), the path, the sha256 of the
file's bytes, its length in characters, its tokens under the course tokenizer (the whole file,
as it would sit in a prompt), and the tokens of its line in miniagent's skills index (with the
default description cap). A file miniagent cannot parse is kept with ``"error"`` and no tokens
of an index line.

``--store-window TOKENS`` also copies texts into data/a6/skills/hermes/ (with Hermes's LICENSE; the
licence must be MIT): the smallest skills, smallest first, as long as their tokens add up to at
most TOKENS. Those are the ones a recording can inline into a prompt of that window; the rest are
only counted.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from chapters.a6.paths import SKILLS  # noqa: E402
from miniagent.skills import DESCRIPTION_CAP, SKILL_FILE, SkillFileError, index_entry, parse_skill  # noqa: E402
from prefixlab.cache.tokenizer import load_tokenizer, text_token_ids  # noqa: E402
from prefixlab.paths import TOKENIZER  # noqa: E402

PIN = "88d1d6206f399c134d1f4c0b7db27733aaa3c50c"  # the Hermes commit data/citations.yml cites
UPSTREAM = "NousResearch/hermes-agent"
OUT = SKILLS / "hermes-manifest.json"
TEXTS = SKILLS / "hermes"


def git(git_dir: Path, *args: str) -> bytes:
    try:
        return subprocess.run(["git", "-C", str(git_dir), *args], check=True, capture_output=True).stdout
    except subprocess.CalledProcessError as err:
        raise SystemExit(f"git {' '.join(args)} failed in {git_dir}: {err.stderr.decode(errors='replace').strip()}")


def skill_paths(git_dir: Path, commit: str) -> list[str]:
    names = git(git_dir, "ls-tree", "-r", "--name-only", commit).decode("utf-8").splitlines()
    return sorted(p for p in names if p.rsplit("/", 1)[-1] == SKILL_FILE)


def licence_of(text: str) -> str:
    first = text.strip().splitlines()[0].strip() if text.strip() else ""
    return "MIT" if first == "MIT License" else first or "unknown"


def describe(path: str, data: bytes, tokenizer) -> dict:
    text = data.decode("utf-8")
    row = {"name": None, "description": None, "path": path, "sha256": hashlib.sha256(data).hexdigest(),
           "characters": len(text), "tokens": len(text_token_ids(tokenizer, text)), "index_tokens": None}
    try:
        skill = parse_skill(text, path, Path(path))
    except SkillFileError as err:
        row["error"] = str(err)
        return row
    row.update(name=skill.name, description=skill.description,
               index_tokens=len(text_token_ids(tokenizer, index_entry(skill) + "\n")))
    return row


def build(git_dir: Path, commit: str) -> tuple[dict, dict[str, bytes]]:
    tokenizer = load_tokenizer(TOKENIZER)
    licence_text = git(git_dir, "show", f"{commit}:LICENSE").decode("utf-8")
    files = {p: git(git_dir, "show", f"{commit}:{p}") for p in skill_paths(git_dir, commit)}
    manifest = {
        "source": {"repo": UPSTREAM, "commit": commit, "licence": licence_of(licence_text),
                   "licence_file": "LICENSE", "generated_by": "scripts/hermes_skills_manifest.py",
                   "generated_on": time.strftime("%Y-%m-%d", time.gmtime())},
        "tokenizer": str(TOKENIZER.relative_to(REPO_ROOT)),
        "index": {"description_cap": DESCRIPTION_CAP},
        "skills": [describe(p, data, tokenizer) for p, data in files.items()],
    }
    return manifest, {"LICENSE": licence_text.encode("utf-8"), **files}


def smallest_fitting(skills: list[dict], window: int) -> list[dict]:
    """The smallest parsable skills, smallest first (ties by path), while the tokens add up to <= window."""
    chosen, total = [], 0
    for row in sorted((r for r in skills if "error" not in r), key=lambda r: (r["tokens"], r["path"])):
        if total + row["tokens"] > window:
            break
        chosen.append(row)
        total += row["tokens"]
    return chosen


def store(manifest: dict, files: dict[str, bytes], rows: list[dict], out: Path) -> None:
    if manifest["source"]["licence"] != "MIT":
        raise SystemExit(f"the licence at this commit is {manifest['source']['licence']!r}, not MIT; no text is stored")
    out.mkdir(parents=True, exist_ok=True)
    (out / "LICENSE").write_bytes(files["LICENSE"])
    for row in rows:
        target = out / row["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[row["path"]])
    src = manifest["source"]
    listing = "\n".join(f"- `{r['path']}` ({r['tokens']} tokens, sha256 `{r['sha256'][:12]}…`)" for r in rows)
    (out / "README.md").write_text(
        f"# Skill texts from Hermes Agent\n\n"
        f"Copied unchanged from {src['repo']} at commit `{src['commit']}` by `{src['generated_by']}` "
        f"(`--store-window`), on {src['generated_on']}. Licence: {src['licence']}, see `LICENSE` (Hermes's own, "
        f"copied from the same commit).\n\n"
        f"Only the skills a recording can inline are kept: the smallest ones, smallest first, while their "
        f"tokens add up to the served context window. Every other SKILL.md of that commit is only counted, "
        f"in `../hermes-manifest.json`. Each file's sha256 there is the sha256 of the copy here.\n\n"
        f"{listing}\n", encoding="utf-8")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("git_dir", type=Path, help="a git clone or bare copy of hermes-agent (or a fork with the commit)")
    p.add_argument("--commit", default=PIN, help="commit to read (default: the course's pin %(default)s)")
    p.add_argument("--out", type=Path, default=OUT, help="manifest to write (default: %(default)s)")
    p.add_argument("--store-window", type=int, metavar="TOKENS",
                   help="also copy the smallest skills that add up to at most TOKENS into data/a6/skills/hermes/")
    args = p.parse_args(argv)
    manifest, files = build(args.git_dir, args.commit)
    if args.store_window:
        rows = smallest_fitting(manifest["skills"], args.store_window)
        store(manifest, files, rows, TEXTS)
        manifest["stored"] = {"folder": str(TEXTS.relative_to(REPO_ROOT)), "window": args.store_window,
                              "paths": [r["path"] for r in rows]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    total = sum(r["tokens"] for r in manifest["skills"])
    print(f"{len(manifest['skills'])} SKILL.md files at {args.commit[:12]}: {total} tokens in all -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
