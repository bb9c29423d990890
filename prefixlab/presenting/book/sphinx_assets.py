"""Sphinx extension: the book serves its own browser libraries, loaded only where needed.

- ``_vendor/`` (require.js, the ipywidgets html-manager, MathJax 3; provenance in
  ``_vendor/README.md``) and plotly.min.js, copied at build time from the installed plotly
  wheel, end up in ``_build/html/_static/prefixlab-vendor/``. No page uses a CDN.
- Pages with a plotly figure get plotly.js once, first of all scripts: plotly's UMD
  wrapper would register an anonymous AMD module if require.js were already there, and
  require.js rejects those ("Mismatched anonymous define()").
- Pages with widgets get require.js after every other global script (clipboard.min.js is
  UMD too) and just before myst-nb's embed-amd.js (``nb_ipywidgets_js`` in _config.yml).
- Pages with math get MathJax through Sphinx (``mathjax_path`` in _config.yml).
- Jupyter Book adds every ``*.js`` under ``_static/`` to every page, which is why the large
  vendored files live in ``_vendor/`` and not in ``_static/``.
- A user dictionary of course terms is loaded into jieba before the search index is built,
  so a query such as 前缀缓存 finds pages (Sphinx's own ``html_search_options['dict']`` is
  resolved against the working directory, which breaks builds started elsewhere).

Sphinx does not re-write unchanged pages when only this file changes: build from clean
(``bash scripts/build_book.sh`` does).
"""

from __future__ import annotations

import functools
import json
import logging as std_logging
import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

VENDOR_SOURCE = "_vendor"  # relative to the book root (Sphinx srcdir)
VENDOR_STATIC = "prefixlab-vendor"  # below _build/html/_static/ (the theme owns _static/vendor/)
FIGURE_MARKER = 'class="plotly-graph-div"'  # written by plotly's to_html for every figure
WIDGET_VIEW_MARKER = 'type="application/vnd.jupyter.widget-view+json"'  # myst-nb widget output
PLOTLY_PRIORITY = 150  # before any script that could define() (see module docstring)
DEFAULT_PRIORITY = 500  # Sphinx's default for js files and for event handlers
ZH_TERMS = Path(__file__).with_name("zh_search_terms.txt")
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


@functools.cache
def plotly_js_source() -> tuple[Path, str]:
    """The plotly.min.js shipped inside the installed plotly wheel, and its plotly.js version."""
    import plotly
    from plotly.offline import get_plotlyjs_version

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.is_file():
        raise FileNotFoundError(f"plotly.min.js not found in the plotly package at {path}")
    return path, get_plotlyjs_version()


def plotly_js_name() -> str:
    """Versioned file name, so a plotly upgrade never serves a stale cached copy."""
    return f"{VENDOR_STATIC}/plotly-{plotly_js_source()[1]}.min.js"


def _load_search_terms(app: Sphinx, config: Any) -> None:
    if not str(config.language).startswith("zh"):
        return
    try:
        import jieba
    except ImportError:
        logger.warning(
            "jieba is not installed: Chinese text will be missing from the search index "
            "(pip install jieba) [prefixlab.search]",
            type="prefixlab",
            subtype="search",
        )
        return
    jieba.setLogLevel(std_logging.WARNING)  # its "Building prefix dict" chatter is noise
    jieba.load_userdict(str(ZH_TERMS))


def _add_page_assets(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if app.builder.format != "html":
        return
    body = context.get("body", "")
    # A figure inside saved widget state appears JSON-escaped (class=\"plotly-graph-div\").
    if FIGURE_MARKER in body or FIGURE_MARKER.replace('"', '\\"') in body:
        app.add_js_file(plotly_js_name(), priority=PLOTLY_PRIORITY)
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


def _copy_vendor_files(app: Sphinx) -> None:
    # Before pages are written, so Sphinx can add its ?v=checksum to these URLs too.
    if app.builder.format != "html":
        return
    dest = Path(app.outdir) / "_static" / VENDOR_STATIC
    source = Path(app.srcdir) / VENDOR_SOURCE
    if not source.is_dir():
        raise FileNotFoundError(f"vendored browser libraries missing: {source}")
    shutil.copytree(source, dest, dirs_exist_ok=True)
    plotly_path, _ = plotly_js_source()
    shutil.copyfile(plotly_path, Path(app.outdir) / "_static" / plotly_js_name())


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _load_search_terms)
    app.connect("html-page-context", _add_page_assets, priority=DEFAULT_PRIORITY - 100)
    app.connect("builder-inited", _copy_vendor_files)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
