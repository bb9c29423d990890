#!/usr/bin/env bash
# Build the book from clean, with warnings as errors.
#   bash scripts/build_book.sh            -> _build/html (the published book)
#   bash scripts/build_book.sh --fixture  -> also _build/fixture/_build/html: the book plus
#        tests/fixtures/offline_demo.ipynb (plotly + widgets + math), for scripts/browser_check.py
# JUPYTER_BOOK overrides the command (default: jupyter-book on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
jb="${JUPYTER_BOOK:-jupyter-book}"
py="${PYTHON:-$(dirname "$(command -v "$jb")")/python}"

# Prices change: warn (never fail) when a price table under data/prices/ is older than 90 days.
"$py" -m prefixlab.cache.models

# Clean: Sphinx skips unchanged pages even when an extension's output would change.
rm -rf _build/html _build/.doctrees _build/jupyter_execute _build/.jupyter_cache
start=$(date +%s)
"$jb" build . -W -n --keep-going
echo "book built in $(( $(date +%s) - start )) s -> _build/html"

if [[ "${1:-}" == "--fixture" ]]; then
  rm -rf _build/fixture
  # The fixture book is the real book plus one test page: compose its toc from _toc.yml,
  # so the two never drift apart.
  "$py" - <<'PY'
import yaml
toc = yaml.safe_load(open("_toc.yml", encoding="utf-8"))
toc.setdefault("parts", []).append({"caption": "离线渲染测试(不发布)",
                                    "chapters": [{"file": "tests/fixtures/offline_demo"}]})
with open("_build/fixture-toc.yml", "w", encoding="utf-8") as f:
    yaml.safe_dump(toc, f, allow_unicode=True, sort_keys=False)
PY
  "$jb" build . --toc _build/fixture-toc.yml --path-output _build/fixture -W -n --keep-going
  echo "fixture book -> _build/fixture/_build/html"
fi
