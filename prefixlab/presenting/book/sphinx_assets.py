"""Sphinx extension: the book serves its own browser libraries, loaded only where needed.

- ``_vendor/`` (require.js, the ipywidgets html-manager, MathJax 3 components, plotly.js's
  partial "cartesian" bundle; provenance in ``_vendor/README.md``) ends up in
  ``_build/html/_static/prefixlab-vendor/``. No page uses a CDN.
- Pages with a plotly figure get plotly.js once, first of all scripts: plotly's UMD
  wrapper would register an anonymous AMD module if require.js were already there, and
  require.js rejects those ("Mismatched anonymous define()"). The bundle must draw every
  trace type the notebooks use (tests/test_book_assets.py) and match the major version
  of the plotly.js that the installed plotly package writes figures for (checked here).
- Pages with widgets get require.js after every other global script (clipboard.min.js is
  UMD too) and just before myst-nb's embed-amd.js (``nb_ipywidgets_js`` in _config.yml).
- Pages with math get MathJax through Sphinx (``mathjax_path`` in _config.yml). Sphinx
  also adds it to every page whose toctree reaches a page with math (the front page, the
  chapter page); it is taken off those again, so only pages with a formula of their own
  pay for it.
- Two theme scripts are left out of every page. fontawesome.js (1.5 MB, Font Awesome's
  SVG-replacing script): the theme's CSS already carries Font Awesome's webfont rules,
  which draw the same icons. The search index (searchindex.js, with searchtools.js and
  language_data.js; it grows with every chapter): the theme loads it on every page for
  search-as-you-type, which is off (``search_as_you_type``), so the search box sends the
  reader to search.html, which loads its own copy. The theme writes these ``<script>``
  lines in two templates; copies without those lines are generated from the installed
  theme at each build and put first on the template path (nothing of the theme is stored
  in this repository; a theme that changes those lines stops the build).
- Jupyter Book adds every ``*.js`` under ``_static/`` to every page, which is why the large
  vendored files live in ``_vendor/`` and not in ``_static/``.
- The search index is cut with the course's words (every glossary term, ``search_index``), so a
  query such as 改写历史 or 轮 finds pages, and it leaves out the agent picture and the course
  map, which are on every page (Sphinx's own ``html_search_options['dict']`` is resolved
  against the working directory, which breaks builds started elsewhere).

Sphinx does not re-write unchanged pages when only this file changes: build from clean
(``bash scripts/build_book.sh`` does).
"""

from __future__ import annotations

import json
import posixpath
import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

from prefixlab.presenting.book import search_index

logger = logging.getLogger(__name__)

VENDOR_SOURCE = "_vendor"  # relative to the book root (Sphinx srcdir)
VENDOR_STATIC = "prefixlab-vendor"  # below _build/html/_static/ (the theme owns _static/vendor/)
PLOTLY_PACKAGE = "plotly.js-cartesian-dist-min"  # npm package of the vendored bundle
PLOTLY_JS = f"{VENDOR_STATIC}/plotly/plotly-cartesian.min.js"  # Sphinx adds ?v=<checksum>
# Theme templates (pydata-sphinx-theme, below its theme folder) -> what to drop from each:
# every line that loads one of these files (see the module docstring).
THEME_MACROS = "static/webpack-macros.html"
THEME_LAYOUT = "layout.html"
FONTAWESOME_JS = "_static/scripts/fontawesome.js"
SEARCH_SCRIPTS = ("_static/searchtools.js", "_static/language_data.js", "searchindex.js")
GENERATED_TEMPLATES = "prefixlab-templates"  # below the doctree dir: build output, not source
FIGURE_MARKER = 'class="plotly-graph-div"'  # written by plotly's to_html for every figure
WIDGET_VIEW_MARKER = 'type="application/vnd.jupyter.widget-view+json"'  # myst-nb widget output
PLOTLY_PRIORITY = 150  # before any script that could define() (see module docstring)
DEFAULT_PRIORITY = 500  # Sphinx's default for js files and for event handlers
# The html-manager typesets widget labels with MathJax 2's MathJax.Hub.Queue whenever a
# MathJax global exists; the book loads MathJax 3. Bridge that one call once MathJax 3
# (a deferred script) has replaced its config object.
MATHJAX2_BRIDGE = """document.addEventListener("DOMContentLoaded", function () {
  var mj = window.MathJax;
  if (!mj || mj.Hub) return;
  mj.Hub = {Queue: function (job) {
    var el = job && job[2];
    if (el && mj.startup) mj.startup.promise.then(function () { return mj.typesetPromise([el]); });
  }};
});"""


def vendored_plotly_js_version(vendor_dir: Path) -> str:
    """The plotly.js version of the vendored partial bundle (from _vendor/manifest.json)."""
    manifest = json.loads((vendor_dir / "manifest.json").read_text(encoding="utf-8"))
    return manifest["packages"][PLOTLY_PACKAGE]["version"]


def check_plotly_js_major(vendor_dir: Path) -> None:
    """Figures are written by the Python plotly package for its own plotly.js; a bundle of
    another major version may not draw them. Same minor is checked by the tests."""
    from plotly.offline import get_plotlyjs_version

    written_for, served = get_plotlyjs_version(), vendored_plotly_js_version(vendor_dir)
    if written_for.split(".")[0] != served.split(".")[0]:
        raise ExtensionError(
            f"the installed plotly package writes figures for plotly.js {written_for}, but "
            f"_vendor/ serves {PLOTLY_PACKAGE} {served}: set PLOTLY_JS_VERSION in "
            "scripts/vendor_js.sh and run it")


def _load_search_terms(app: Sphinx, config: Any) -> None:
    if not str(config.language).startswith("zh"):
        return
    try:
        import jieba  # noqa: F401
    except ImportError:
        logger.warning(
            "jieba is not installed: Chinese text will be missing from the search index "
            "(pip install jieba) [prefixlab.search]",
            type="prefixlab",
            subtype="search",
        )
        return
    from sphinx import search

    search.languages["zh"] = search_index.make_search_language(Path(app.srcdir) / search_index.GLOSSARY)


def _index_without_picture_and_map(app: Sphinx) -> None:
    index_page = getattr(app.builder, "index_page", None)
    if index_page is None:
        return

    def index_page_without(pagename: str, doctree: Any, title: str) -> None:
        index_page(pagename, search_index.without_unindexed(doctree), title)

    app.builder.index_page = index_page_without


def _add_page_assets(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if app.builder.format != "html":
        return
    body = context.get("body", "")
    # A figure inside saved widget state appears JSON-escaped (class=\"plotly-graph-div\").
    if FIGURE_MARKER in body or FIGURE_MARKER.replace('"', '\\"') in body:
        app.add_js_file(PLOTLY_JS, priority=PLOTLY_PRIORITY)
    if WIDGET_VIEW_MARKER in body:
        # myst-nb adds embed-amd.js (nb_ipywidgets_js) in its own handler, which runs after
        # this one. require.js must come after every global script (clipboard.min.js & co.
        # are UMD too) and before embed-amd.js: same priority, inserted in between.
        # The html-manager finds its icon fonts next to its AMD module's URL, which would
        # otherwise resolve relative to the page: give the bundled module ids a path.
        app.add_js_file(f"{VENDOR_STATIC}/requirejs/require.js", priority=DEFAULT_PRIORITY)
        manager_dir = context["pathto"](f"_static/{VENDOR_STATIC}/html-manager", 1)
        paths = json.dumps({"@jupyter-widgets": manager_dir,
                            "@jupyter-widgets/html-manager/dist": manager_dir})
        app.add_js_file(None, body=f"require.config({{paths: {paths}}});",
                        priority=DEFAULT_PRIORITY)
        app.add_js_file(None, body=MATHJAX2_BRIDGE, priority=DEFAULT_PRIORITY)


def _drop_mathjax_without_formula(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    # Runs after sphinx.ext.mathjax, which also counts formulas on pages reached by this
    # page's toctree. Only the page's own formulas need MathJax.
    if app.builder.format != "html" or "script_files" not in context:
        return
    if app.env.get_domain("math").data["has_equations"].get(pagename):
        return
    # Sphinx puts a relative mathjax_path below _static/; the config is an inline script.
    mathjax_path = str(app.config.mathjax_path)
    mathjax_files = {mathjax_path, posixpath.join("_static", mathjax_path)}
    context["script_files"][:] = [
        js for js in context["script_files"]
        if str(getattr(js, "filename", js)) not in mathjax_files
        and not str(getattr(js, "attributes", {}).get("body", "")).startswith("window.MathJax")
    ]


def template_without_scripts(source: str, files: tuple[str, ...], template: str) -> str:
    """A theme template minus the one line that loads each of ``files``."""
    lines = source.splitlines(keepends=True)
    for name in files:
        found = [line for line in lines if name in line]
        if len(found) != 1:
            raise ExtensionError(
                f"expected exactly one line loading {name} in the theme's {template}, found "
                f"{len(found)}: the theme changed; update prefixlab/presenting/book/sphinx_assets.py")
        lines.remove(found[0])
    return "".join(lines)


def _theme_templates_without_heavy_scripts(app: Sphinx, config: Any) -> None:
    import pydata_sphinx_theme

    theme_dir = Path(pydata_sphinx_theme.__file__).parent / "theme"
    target_dir = Path(app.doctreedir) / GENERATED_TEMPLATES
    shutil.rmtree(target_dir, ignore_errors=True)  # no stale copy from an earlier build
    # sphinx-book-theme extends "pydata_sphinx_theme/layout.html", which imports "static/…".
    drops = {THEME_MACROS: (FONTAWESOME_JS,)}
    if not str(config.html_theme_options.get("search_as_you_type", False)).lower() == "true":
        drops[f"pydata_sphinx_theme/{THEME_LAYOUT}"] = SEARCH_SCRIPTS
    for template, files in drops.items():
        source = theme_dir / "pydata_sphinx_theme" / template.removeprefix("pydata_sphinx_theme/")
        target = target_dir / template
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(template_without_scripts(source.read_text(encoding="utf-8"), files, template),
                          encoding="utf-8")
    # First on the template path: Jinja finds these copies before the theme's own.
    config.templates_path = [str(target_dir), *config.templates_path]


def _copy_vendor_files(app: Sphinx) -> None:
    # Before pages are written, so Sphinx can add its ?v=checksum to these URLs too.
    if app.builder.format != "html":
        return
    dest = Path(app.outdir) / "_static" / VENDOR_STATIC
    source = Path(app.srcdir) / VENDOR_SOURCE
    if not source.is_dir():
        raise FileNotFoundError(f"vendored browser libraries missing: {source}")
    check_plotly_js_major(source)
    shutil.copytree(source, dest, dirs_exist_ok=True)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _load_search_terms)
    app.connect("config-inited", _theme_templates_without_heavy_scripts)
    app.connect("html-page-context", _add_page_assets, priority=DEFAULT_PRIORITY - 100)
    app.connect("html-page-context", _drop_mathjax_without_formula, priority=DEFAULT_PRIORITY + 100)
    app.connect("builder-inited", _copy_vendor_files)
    app.connect("builder-inited", _index_without_picture_and_map)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
