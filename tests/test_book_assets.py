"""What the book's pages load: the partial plotly.js bundle, the slim figure template,
MathJax components, the theme without fontawesome.js (no build needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import plotly.graph_objects as go
import plotly.io as pio
import pytest
import yaml

from prefixlab.presenting.book import plotly_setup, sphinx_assets

REPO_ROOT = Path(__file__).resolve().parents[1]
VENDOR = REPO_ROOT / "_vendor"
PLOTLY_JSON = "application/vnd.plotly.v1+json"
NEW_PLOT = re.compile(r'Plotly\.newPlot\(\s*"[^"]*",\s*')


def notebooks() -> list[Path]:
    found = []
    for folder in ("book", "labs", "tests/fixtures"):
        found += [p for p in sorted((REPO_ROOT / folder).rglob("*.ipynb"))
                  if ".ipynb_checkpoints" not in p.parts]
    return found


def traces_in_html(html: str):
    """Traces of every figure that plotly's to_html wrote into this HTML."""
    for match in NEW_PLOT.finditer(html):
        data, _ = json.JSONDecoder().raw_decode(html, match.end())
        yield from data


def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def figure_trace_types(path: Path) -> dict[str, str]:
    """Trace type -> where it was first seen, over every figure the notebook carries:
    plotly JSON outputs, their text/html, and HTML saved inside widget state."""
    nb = nbformat.read(path, as_version=4)
    found: dict[str, str] = {}
    for i, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            figure = data.get(PLOTLY_JSON)
            traces = list((figure or {}).get("data", []))
            for frame in (figure or {}).get("frames", []):
                traces += frame.get("data", [])
            html = data.get("text/html", "")
            traces += traces_in_html("".join(html) if isinstance(html, list) else html)
            for trace in traces:
                found.setdefault(trace.get("type", "scatter"), f"cell {i}")
    for text in strings_in(nb.metadata.get("widgets", {})):
        for trace in traces_in_html(text):
            found.setdefault(trace.get("type", "scatter"), "widget state")
    return found


def bundle_trace_types() -> set[str]:
    """Trace modules registered by the vendored plotly.js bundle."""
    source = (VENDOR / "plotly" / "plotly-cartesian.min.js").read_text(encoding="utf-8")
    return set(re.findall(r'moduleType:"trace",name:"(\w+)"', source))


def test_bundle_is_the_cartesian_partial_bundle():
    types = bundle_trace_types()
    assert {"bar", "scatter", "heatmap"} <= types
    assert not types & {"surface", "scattergl", "scattermapbox", "choropleth"}, "not a partial bundle"


def test_vendored_plotly_js_matches_the_python_plotly():
    from plotly.offline import get_plotlyjs_version

    written_for = get_plotlyjs_version()
    served = sphinx_assets.vendored_plotly_js_version(VENDOR)
    assert served == written_for, (
        f"plotly (Python) writes figures for plotly.js {written_for}, _vendor/ serves {served}: "
        "set PLOTLY_JS_VERSION in scripts/vendor_js.sh and run it")
    sphinx_assets.check_plotly_js_major(VENDOR)  # what the build checks


def test_build_refuses_a_bundle_of_another_major_version(tmp_path):
    manifest = json.loads((VENDOR / "manifest.json").read_text(encoding="utf-8"))
    manifest["packages"][sphinx_assets.PLOTLY_PACKAGE]["version"] = "2.35.3"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(Exception, match="PLOTLY_JS_VERSION"):
        sphinx_assets.check_plotly_js_major(tmp_path)


def test_every_figure_uses_a_trace_type_the_bundle_draws():
    bundle = bundle_trace_types()
    seen_any = False
    for path in notebooks():
        for kind, where in figure_trace_types(path).items():
            seen_any = True
            assert kind in bundle, (
                f"{path.relative_to(REPO_ROOT)} {where}: a {kind!r} trace, which the vendored "
                f"plotly.js bundle ({sphinx_assets.PLOTLY_PACKAGE}) cannot draw: the figure would be "
                "blank on the page. Vendor a bundle with it (scripts/vendor_js.sh) or use another trace type")
    assert seen_any, "no figure found in any notebook: is the scan broken?"


def test_every_figure_uses_a_trace_type_the_slim_template_styles():
    for path in notebooks():
        for kind, where in figure_trace_types(path).items():
            assert kind in plotly_setup.BOOK_TRACE_TYPES, (
                f"{path.relative_to(REPO_ROOT)} {where}: a {kind!r} trace; add it to BOOK_TRACE_TYPES "
                "in prefixlab/presenting/book/plotly_setup.py so it keeps plotly's default look")


def test_scan_finds_traces_in_html_and_widget_state():
    fig = go.Figure(go.Heatmap(z=[[1, 2]]))
    html = plotly_setup.BookHtmlRenderer().to_mimebundle(fig.to_dict())["text/html"]
    assert [t["type"] for t in traces_in_html(html)] == ["heatmap"]
    state = {"state": {"m": {"outputs": [{"data": {"text/html": html}}]}}}
    assert [t["type"] for s in strings_in(state) for t in traces_in_html(s)] == ["heatmap"]


def test_slim_template_keeps_plotly_defaults_for_the_book_trace_types():
    full = pio.templates[plotly_setup.BASE_TEMPLATE].to_plotly_json()
    slim = plotly_setup.slim_template().to_plotly_json()
    assert set(slim["data"]) == set(plotly_setup.BOOK_TRACE_TYPES) & set(full["data"])
    for kind in slim["data"]:
        assert slim["data"][kind] == full["data"][kind], kind
    # Same colours, fonts, axes: every layout default except unused subplot kinds.
    assert slim["layout"] == {k: v for k, v in full["layout"].items()
                              if k not in plotly_setup.UNUSED_LAYOUT_KEYS}
    assert {"colorway", "font", "xaxis", "yaxis", "plot_bgcolor"} <= set(slim["layout"])
    assert len(json.dumps(slim)) < len(json.dumps(full)) / 2


def test_setup_notebook_gives_new_figures_the_slim_template():
    from prefixlab.presenting.book import setup_notebook

    default = pio.templates.default
    try:
        setup_notebook()
        template = go.Figure(go.Bar(x=[1], y=[2])).to_dict()["layout"]["template"]
        assert "surface" not in template["data"] and "scene" not in template["layout"]
        assert template["layout"]["colorway"] == list(pio.templates["plotly"].layout.colorway)
    finally:
        pio.templates.default = default


def test_book_html_writes_chinese_as_utf8_and_parses_to_the_same_figure():
    fig = go.Figure(go.Bar(x=["第 1 轮", "a/b<c>"], y=[1, 2], hovertext=["读 861 \\u7b2c 😀"]))
    html = plotly_setup.BookHtmlRenderer().to_mimebundle(fig.to_dict())["text/html"]
    assert "第 1 轮" in html and "\\u7b2c 1" not in html
    assert "<c>" not in html, "the JSON must not be able to close its <script>"
    (trace,) = traces_in_html(html)
    assert trace["x"] == ["第 1 轮", "a/b<c>"] and trace["hovertext"] == ["读 861 \\u7b2c 😀"]


def test_unescape_keeps_escaped_backslashes_and_ascii_escapes():
    text = r'"\u7b2c \\u7b2c \\\u7b2c \u003c \u2028 \ud83d\ude00"'
    assert plotly_setup.unescape_non_ascii(text) == r'"第 \\u7b2c \\第 \u003c \u2028 \ud83d\ude00"'
    assert json.loads(plotly_setup.unescape_non_ascii(text)) == json.loads(text)


def theme_template(name: str) -> str:
    import pydata_sphinx_theme

    return (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / name
            ).read_text(encoding="utf-8")


def test_theme_templates_lose_only_the_heavy_scripts():
    macros = theme_template(sphinx_assets.THEME_MACROS)
    slim = sphinx_assets.template_without_scripts(macros, (sphinx_assets.FONTAWESOME_JS,), "macros")
    assert "fontawesome.js" not in slim
    assert len(macros.splitlines()) - len(slim.splitlines()) == 1
    assert "bootstrap.js" in slim and "pydata-sphinx-theme.css" in slim
    layout = theme_template(sphinx_assets.THEME_LAYOUT)
    slim = sphinx_assets.template_without_scripts(layout, sphinx_assets.SEARCH_SCRIPTS, "layout")
    assert "searchindex.js" not in slim and "searchtools.js" not in slim
    assert len(layout.splitlines()) - len(slim.splitlines()) == 3
    with pytest.raises(Exception, match="theme changed"):
        sphinx_assets.template_without_scripts(slim, sphinx_assets.SEARCH_SCRIPTS, "layout")


def test_search_as_you_type_is_off():
    # The search index is left off the pages only because nothing on them searches.
    from jupyter_book.config import get_final_config

    final, _ = get_final_config(
        user_yaml=REPO_ROOT / "_config.yml", cli_config={"latex_individualpages": False},
        sourcedir=REPO_ROOT, validate=True, raise_on_invalid=True)
    assert str(final["html_theme_options"].get("search_as_you_type", False)).lower() != "true"
    assert "search_as_you_type = False" in theme_template("theme.conf")


def test_theme_css_draws_the_icons_without_fontawesome_js():
    # Without fontawesome.js the theme's <i class="fa-…"> icons are drawn by its webfont rules.
    import pydata_sphinx_theme

    css = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
           / "static" / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    assert "fa-solid-900.woff2" in css and "fa-brands-400.woff2" in css
    for icon in ("magnifying-glass", "rocket", "github", "lightbulb", "download", "expand",
                 "bars", "list", "sun", "moon", "circle-half-stroke"):
        assert re.search(rf"\.fa-{icon}(:before|,)", css), icon


def test_mathjax_components_are_vendored():
    sphinx = yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))["sphinx"]["config"]
    mathjax = VENDOR / sphinx["mathjax_path"].removeprefix(f"{sphinx_assets.VENDOR_STATIC}/")
    assert mathjax.is_file(), mathjax
    for component in sphinx["mathjax3_config"]["loader"]["load"]:
        assert (mathjax.parent / f"{component}.js").is_file(), component
    assert (mathjax.parent / "output/chtml/fonts/tex.js").is_file()  # chtml's font, loaded by it
    assert (mathjax.parent / "output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff").is_file()


def test_mathjax_stays_only_on_the_page_with_the_formula(tmp_path):
    # Sphinx alone would also load MathJax on index.html, whose toctree reaches m.html.
    # A separate process: an in-process Sphinx leaves docutils registrations behind.
    import os
    import subprocess
    import sys

    (tmp_path / "conf.py").write_text(
        "from prefixlab.presenting.book import sphinx_assets\n"
        "extensions = ['sphinx.ext.mathjax']\n"
        "mathjax_path = 'prefixlab-vendor/mathjax/startup.js'\n"
        "mathjax3_config = {'loader': {'load': ['input/tex-base']}}\n"
        "def setup(app):\n"
        "    app.connect('html-page-context', sphinx_assets._drop_mathjax_without_formula,\n"
        "                priority=sphinx_assets.DEFAULT_PRIORITY + 100)\n", encoding="utf-8")
    (tmp_path / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   m\n", encoding="utf-8")
    (tmp_path / "m.rst").write_text("M\n=\n\n:math:`x^2`\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(tmp_path), str(tmp_path / "_build")],
                   check=True, env=env, capture_output=True)
    index = (tmp_path / "_build" / "index.html").read_text(encoding="utf-8")
    page = (tmp_path / "_build" / "m.html").read_text(encoding="utf-8")
    assert "startup.js" in page and "window.MathJax" in page
    assert "startup.js" not in index and "window.MathJax" not in index
