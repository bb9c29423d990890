"""Where things are in this repository: the one module that knows the layout of ``data/``.

Every other module takes its paths from here instead of walking up from its own file, so
moving a module never changes what it reads.
"""
from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA = REPO_ROOT / "data"

RECORDINGS = DATA / "recordings"                 # one directory per recording (manifest.json + sessions)
RECORDING_SCHEMA = RECORDINGS / "schema.json"    # what manifest.json must look like
T10_DIR = DATA / "t10"                           # the T10 experiment: script, tasks, the repo it works on
T11_DIR = DATA / "t11"                           # T11 (lesson A6·1, where a human rule lives): the same parts
T12_DIR = DATA / "t12"                           # T12 (lesson A6·3, skills: inline or an index): the same parts
SKILLS = DATA / "skills"                         # Hermes's skills manifest and a few texts; our own skills (ours/)
T13_DIR = DATA / "t13"                           # T13 (lesson A6·4, the session is a tree): the branches
T14_DIR = DATA / "t14"                           # T14 (side lesson A6·R, memory file vs retrieval): notes, script
RECALL_DIR = DATA / "recall"                     # A6·R's small hand-labelled recall set (tasks x notes they need)
LOADER_TREE = DATA / "loader-tree"               # AGENTS.md at several levels (lesson A6·1's loader explorer)

TOKENIZER = DATA / "tokenizers" / "smollm2-135m-instruct.tokenizer.json"  # derived from the GGUF
TOKENIZER_CORPUS = DATA / "tokenizers" / "corpus"                         # cases + llama-server's answers
CHAT_TEMPLATE = DATA / "templates" / "qwen3-chat-template.jinja"          # what the course server renders with

PRICES = DATA / "prices"                         # <provider>.yml price tables
CITATIONS = DATA / "citations.yml"
A6_EVOLUTION = DATA / "a6-evolution.yml"         # chapter A6's evolution map (prefixlab.presenting.evolution)
CITATIONS_SCHEMA = DATA / "citations.schema.json"
AGENT_PICTURE = DATA / "agent-picture.yml"      # one round of the agent, lesson by lesson (presenting.agent_picture)
TOC = REPO_ROOT / "_toc.yml"                    # the book's table of contents: which lessons are written
