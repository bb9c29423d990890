"""Where things are in this repository: the one module that knows the generic layout of ``data/``.

Every other module takes its paths from here instead of walking up from its own file, so
moving a module never changes what it reads. A chapter's own data has its own paths module
(``chapters/<chapter>/paths.py``).
"""
from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA = REPO_ROOT / "data"
CHAPTERS = REPO_ROOT / "chapters"               # one package per chapter: its experiments, figures, tests

RECORDINGS = DATA / "recordings"                 # one directory per recording (manifest.json + sessions)
RECORDING_SCHEMA = RECORDINGS / "schema.json"    # what manifest.json must look like
RECORDING_ENTRY_SCHEMA = RECORDINGS / "entry.schema.json"  # what a request entry of a session file must hold
TOY_REPO = DATA / "toy-repo"                     # the small repository the experiments' sessions work on

TOKENIZER = DATA / "tokenizers" / "smollm2-135m-instruct.tokenizer.json"  # derived from the GGUF
TOKENIZER_CORPUS = DATA / "tokenizers" / "corpus"                         # cases + llama-server's answers
CHAT_TEMPLATE = DATA / "templates" / "qwen3-chat-template.jinja"          # what the course server renders with

PRICES = DATA / "prices"                         # <provider>.yml price tables
PRICES_SCHEMA = PRICES / "schema.json"           # what a price table may hold (price_table.py)
CITATIONS = DATA / "citations.yml"
CITATIONS_SCHEMA = DATA / "citations.schema.json"
AGENT_PICTURE = DATA / "agent-picture.yml"      # one round of the agent, lesson by lesson (presenting.agent_picture)
TOC = REPO_ROOT / "_toc.yml"                    # the book's table of contents: which lessons are written
