#!/usr/bin/env bash
# Re-vendor the browser libraries that the book serves itself (no CDN at read time).
# Fetches exact versions from the npm registry with `npm pack` (no dependency install),
# copies the few files the book needs into _vendor/, and rewrites _vendor/manifest.json
# (versions, npm integrity, licence, per-file sha256).
# Usage: bash scripts/vendor_js.sh        (needs node + npm; the build itself does not)
set -euo pipefail

REQUIREJS_VERSION=2.3.8
HTML_MANAGER_VERSION=1.0.15   # @jupyter-widgets/html-manager 1.x pairs with ipywidgets 8
FONTAWESOME_VERSION=5.15.4    # the Font Awesome whose fonts html-manager 1.0.15 bundles
MATHJAX_VERSION=3.2.2         # Sphinx 7 targets MathJax 3
# plotly.js as the Python plotly package writes figures for: plotly==6.9.0 bundles
# plotly.js 3.7.0 (plotly.offline.get_plotlyjs_version()); tests/test_book_config.py checks.
PLOTLY_JS_VERSION=3.7.0

root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# npm pack writes NAME-VERSION.tgz plus a JSON record (integrity, version) for each package.
specs=("requirejs@${REQUIREJS_VERSION}" "@jupyter-widgets/html-manager@${HTML_MANAGER_VERSION}"
       "@fortawesome/fontawesome-free@${FONTAWESOME_VERSION}" "mathjax@${MATHJAX_VERSION}"
       "plotly.js-cartesian-dist-min@${PLOTLY_JS_VERSION}")
npm pack --json "${specs[@]}" > packed.json 2>/dev/null
python3 - packed.json <<'PY'
import json, sys, tarfile
from pathlib import Path
for entry in json.loads(Path(sys.argv[1]).read_text()):
    dest = Path("pkg") / entry["name"]
    dest.mkdir(parents=True)
    with tarfile.open(entry["filename"]) as tar:
        tar.extractall(dest, filter="data")  # every npm tarball has one top folder, package/
PY

dest="$root/_vendor"
rm -rf "$dest/requirejs" "$dest/html-manager" "$dest/mathjax" "$dest/plotly"
mkdir -p "$dest/requirejs" "$dest/html-manager" "$dest/plotly"
cp pkg/requirejs/package/require.js "$dest/requirejs/"
hm=pkg/@jupyter-widgets/html-manager/package/dist
cp "$hm/embed-amd.js" "$dest/html-manager/"
# embed-amd.js resolves its Font Awesome fonts relative to its own URL; browsers take the
# woff2 entry of each @font-face, so only the woff2 files are shipped.
for font in $(grep -o '[0-9a-f]\{20\}\.woff2' "$hm/embed-amd.js" | sort -u); do
  cp "$hm/$font" "$dest/html-manager/"
done
cp pkg/@fortawesome/fontawesome-free/package/LICENSE.txt "$dest/html-manager/FONTAWESOME-LICENSE.txt"

# MathJax: the loader (startup.js) and only the components our formulas need, loaded as
# listed in mathjax3_config.loader.load (_config.yml): TeX input with the base package,
# CommonHTML output with its TeX font, and assistive MathML for screen readers. No menu
# (ui/menu.js, 0.4 MB of the combined bundles). Fonts load from [startup.js dir]/output/chtml/fonts/woff-v2.
mj=pkg/mathjax/package/es5
for component in startup.js core.js input/tex-base.js output/chtml.js output/chtml/fonts/tex.js \
                 a11y/assistive-mml.js; do
  mkdir -p "$dest/mathjax/$(dirname "$component")"
  cp "$mj/$component" "$dest/mathjax/$component"
done
cp -r "$mj/output/chtml/fonts/woff-v2" "$dest/mathjax/output/chtml/fonts/"
cp pkg/mathjax/package/LICENSE "$dest/mathjax/"

# plotly.js: the partial "cartesian" bundle (bar, box, contour, heatmap, histogram*, image,
# pie, scatter, scatterternary, violin): a third of the full bundle the wheel ships.
cp pkg/plotly.js-cartesian-dist-min/package/plotly-cartesian.min.js \
   pkg/plotly.js-cartesian-dist-min/package/LICENSE "$dest/plotly/"

python3 - "$dest" packed.json <<'PY'
import hashlib, json, sys
from pathlib import Path

dest, packed = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
packages = {}
for entry in packed:
    meta = json.loads((Path("pkg") / entry["name"] / "package" / "package.json").read_text())
    packages[entry["name"]] = {"version": entry["version"], "integrity": entry["integrity"],
                               "license": meta.get("license")}
files = {
    p.relative_to(dest).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
    for p in sorted(dest.rglob("*"))
    if p.is_file() and p.name not in ("manifest.json", "README.md")
}
manifest = {"source": "npm registry (npm pack)", "packages": packages, "files_sha256": files}
(dest / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
print(f"wrote {dest / 'manifest.json'} ({len(files)} files)")
PY
