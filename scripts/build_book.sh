#!/usr/bin/env bash
# Build the book from clean, with warnings as errors.
#   bash scripts/build_book.sh            -> _build/html (the published book)
#   bash scripts/build_book.sh --fixture  -> also _build/fixture/_build/html: the front page plus
#        tests/fixtures/offline_demo.ipynb (plotly + widgets + math), for scripts/browser_check.py
#   bash scripts/build_book.sh --fixture-only -> only the fixture book (CI: `make book` has just
#        built _build/html from the same tree, so building it again would only cost minutes)
# JUPYTER_BOOK overrides the command (default: jupyter-book on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
jb="${JUPYTER_BOOK:-jupyter-book}"
py="${PYTHON:-$(dirname "$(command -v "$jb")")/python}"

# Prices change: warn (never fail) when a price table under data/prices/ is older than 90 days.
"$py" -m prefixlab.cache.models

if [[ "${1:-}" != "--fixture-only" ]]; then
  # Clean: Sphinx skips unchanged pages even when an extension's output would change.
  rm -rf _build/html _build/.doctrees _build/jupyter_execute _build/.jupyter_cache
  start=$(date +%s)
  "$jb" build . -W -n --keep-going
  echo "book built in $(( $(date +%s) - start )) s -> _build/html"
elif [[ ! -f _build/html/index.html ]]; then
  echo "--fixture-only: there is no _build/html to check; run bash scripts/build_book.sh first" >&2
  exit 1
fi

if [[ "${1:-}" == "--fixture" || "${1:-}" == "--fixture-only" ]]; then
  rm -rf _build/fixture
  # The fixture book is the real front page (the book's root, with its course map) plus one test
  # page, built with the same _config.yml. Every real page is in _build/html and checked there;
  # the other pages are left out (only_build_toc_files) so the fixture costs seconds, not minutes.
  "$py" - <<'PY'
import yaml
toc = yaml.safe_load(open("_toc.yml", encoding="utf-8"))
toc = {"format": toc["format"], "root": toc["root"],
       "parts": [{"caption": "离线渲染测试(不发布)", "chapters": [{"file": "tests/fixtures/offline_demo"}]}]}
with open("_build/fixture-toc.yml", "w", encoding="utf-8") as f:
    yaml.safe_dump(toc, f, allow_unicode=True, sort_keys=False)
PY
  "$jb" build . --toc _build/fixture-toc.yml --path-output _build/fixture -W -n --keep-going
  echo "fixture book -> _build/fixture/_build/html"
fi
