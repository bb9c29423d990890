#!/usr/bin/env bash
# Re-vendor the browser libraries that the book serves itself (no CDN at read time).
# Installs exact versions from the npm registry into a temp dir, copies the few files the
# book needs into _vendor/, and rewrites _vendor/manifest.json (versions, npm integrity, sha256).
# Usage: bash scripts/vendor_js.sh        (needs node + npm; the build itself does not)
set -euo pipefail

REQUIREJS_VERSION=2.3.8
HTML_MANAGER_VERSION=1.0.15   # @jupyter-widgets/html-manager 1.x pairs with ipywidgets 8
MATHJAX_VERSION=3.2.2         # Sphinx 7 targets MathJax 3

root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --ignore-scripts \
  "requirejs@${REQUIREJS_VERSION}" "@jupyter-widgets/html-manager@${HTML_MANAGER_VERSION}" \
  "mathjax@${MATHJAX_VERSION}" >/dev/null

dest="$root/_vendor"
rm -rf "$dest/requirejs" "$dest/html-manager" "$dest/mathjax"
mkdir -p "$dest/requirejs" "$dest/html-manager" "$dest/mathjax/output/chtml/fonts"
cp node_modules/requirejs/require.js "$dest/requirejs/"
hm=node_modules/@jupyter-widgets/html-manager/dist
cp "$hm/embed-amd.js" "$dest/html-manager/"
# embed-amd.js resolves its Font Awesome fonts relative to its own URL; browsers take the
# woff2 entry of each @font-face, so only the woff2 files are shipped.
for font in $(grep -o '[0-9a-f]\{20\}\.woff2' "$hm/embed-amd.js" | sort -u); do
  cp "$hm/$font" "$dest/html-manager/"
done
cp node_modules/@fortawesome/fontawesome-free/LICENSE.txt "$dest/html-manager/FONTAWESOME-LICENSE.txt"
# MathJax: the "full" TeX bundle (no extension is fetched later) and the CHTML fonts, which
# it loads from [its own directory]/output/chtml/fonts/woff-v2.
cp node_modules/mathjax/es5/tex-chtml-full.js node_modules/mathjax/LICENSE "$dest/mathjax/"
cp -r node_modules/mathjax/es5/output/chtml/fonts/woff-v2 "$dest/mathjax/output/chtml/fonts/"

python3 - "$dest" package-lock.json <<'PY'
import hashlib, json, sys
from pathlib import Path

dest, lock = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
packages = {}
for name in ("requirejs", "@jupyter-widgets/html-manager", "@fortawesome/fontawesome-free", "mathjax"):
    entry = lock["packages"][f"node_modules/{name}"]
    packages[name] = {k: entry.get(k) for k in ("version", "integrity", "license")}
files = {
    p.relative_to(dest).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
    for p in sorted(dest.rglob("*"))
    if p.is_file() and p.name not in ("manifest.json", "README.md")
}
manifest = {"source": "npm registry", "packages": packages, "files_sha256": files}
(dest / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
print(f"wrote {dest / 'manifest.json'} ({len(files)} files)")
PY
