"""The book's configuration, vendored assets and notebook helpers (no build needed)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import nbformat
import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
REPO_URL = "https://github.com/coding-agent-from-zero/course"
PLOTLY_JSON = "application/vnd.plotly.v1+json"


def load_yaml(name: str) -> dict:
    return yaml.safe_load((REPO_ROOT / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def config() -> dict:
    return load_yaml("_config.yml")


def test_core_settings(config):
    assert config["title"] == "从0打造编码Agent"
    assert config["only_build_toc_files"] is True
    # The string "off", not YAML's boolean false.
    assert config["execute"]["execute_notebooks"] == "off"
    sphinx = config["sphinx"]
    assert sphinx["recursive_update"] is True, "without it sphinx.config wipes the theme options"
    assert sphinx["config"]["language"] == "zh_CN"


def test_jupyter_book_accepts_the_config():
    from jupyter_book.config import get_final_config

    final, _ = get_final_config(
        user_yaml=REPO_ROOT / "_config.yml", cli_config={"latex_individualpages": False},
        sourcedir=REPO_ROOT, validate=True, raise_on_invalid=True)
    theme = final["html_theme_options"]
    # The recursive_update trap: our html_theme_options must not replace these.
    assert theme["repository_url"] == REPO_URL
    assert theme["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert theme["launch_buttons"]["notebook_interface"] == "jupyterlab"
    assert theme["search_bar_text"] == "搜索本书……"
    assert "sphinx_thebe" not in final["extensions"]
    assert {"prefixlab.presenting.book.sphinx_assets", "prefixlab.presenting.book.sphinx_citations"} <= set(final["extensions"])
    # Everything under _static/ is loaded on every page: keep it small.
    assert all(not f.startswith(("vendor", "prefixlab-vendor")) for f in final["html_js_files"])
    for url in final["nb_ipywidgets_js"]:
        assert not url.startswith(("http:", "https:", "//")), f"widgets JS from a CDN: {url}"


def test_repository_url_is_written_once():
    candidates = [REPO_ROOT / "_config.yml", REPO_ROOT / "_toc.yml",
                  *sorted((REPO_ROOT / "book").rglob("*.md"))]
    hits = [p.relative_to(REPO_ROOT).as_posix() for p in candidates
            if REPO_URL in p.read_text(encoding="utf-8")]
    assert hits == ["_config.yml"]
    assert (REPO_ROOT / "_config.yml").read_text(encoding="utf-8").count(REPO_URL) == 1


def _toc_files(toc: dict) -> list[str]:
    files = [toc["root"]]

    def walk(items):
        for item in items or []:
            if "file" in item:
                files.append(item["file"])
            walk(item.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return files


@pytest.mark.parametrize("toc_name", ["_toc.yml"])
def test_toc_lists_only_existing_files(toc_name):
    toc = load_yaml(toc_name)
    assert toc["format"] == "jb-book"
    for entry in _toc_files(toc):
        candidates = [REPO_ROOT / f"{entry}{ext}" for ext in (".md", ".ipynb")]
        assert any(c.is_file() for c in candidates), f"{toc_name}: {entry} does not exist"


def test_fixture_is_not_in_the_real_toc():
    assert not any(f.startswith("tests/") for f in _toc_files(load_yaml("_toc.yml")))


def test_vendored_files_match_the_manifest():
    vendor = REPO_ROOT / "_vendor"
    manifest = json.loads((vendor / "manifest.json").read_text(encoding="utf-8"))
    on_disk = {
        p.relative_to(vendor).as_posix()
        for p in vendor.rglob("*")
        if p.is_file() and p.name not in ("manifest.json", "README.md")
    }
    assert on_disk == set(manifest["files_sha256"]), "re-run scripts/vendor_js.sh"
    for rel, digest in manifest["files_sha256"].items():
        assert hashlib.sha256((vendor / rel).read_bytes()).hexdigest() == digest, rel


def test_static_dir_holds_no_large_library():
    # Jupyter Book puts every _static/**/*.js on every page.
    for path in (REPO_ROOT / "_static").rglob("*.js"):
        assert path.stat().st_size < 20_000, f"{path} is loaded on every page; move it to _vendor/"


def test_plotly_renderer_emits_html_for_the_page_global_plotly():
    import plotly.graph_objects as go
    import plotly.io as pio

    from prefixlab.presenting.book import setup_notebook
    from prefixlab.presenting.book.plotly_setup import BookHtmlRenderer
    from prefixlab.presenting.book.sphinx_assets import FIGURE_MARKER

    setup_notebook()
    assert pio.renderers.default == "plotly_mimetype+prefixlab_book"
    fig = go.Figure(go.Bar(x=[1, 2], y=[3, 4]))
    bundle = pio.renderers._build_mime_bundle(fig.to_dict())
    assert set(bundle) >= {PLOTLY_JSON, "text/html"}
    html = bundle["text/html"]
    assert FIGURE_MARKER in html, "sphinx_assets looks for this to load plotly.js"
    assert "<script src" not in html and "cdn.plot.ly" not in html
    # Fresh kernels number figures the same way: re-running gives identical outputs.
    first = BookHtmlRenderer().to_mimebundle(fig.to_dict())
    again = BookHtmlRenderer().to_mimebundle(fig.to_dict())
    assert first == again


def _notebooks() -> list[Path]:
    found = []
    for folder in ("book", "labs", "tests/fixtures"):
        found += [p for p in sorted((REPO_ROOT / folder).rglob("*.ipynb"))
                  if ".ipynb_checkpoints" not in p.parts]
    return found


def test_no_figure_is_saved_as_plotly_json_only():
    # myst-nb drops such an output without a warning we can keep (see _config.yml).
    for path in _notebooks():
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                assert not (PLOTLY_JSON in data and "text/html" not in data), (
                    f"{path.relative_to(REPO_ROOT)} cell {i}: plotly figure without text/html; "
                    "call prefixlab.presenting.book.setup_notebook() first and re-run")


def test_notebooks_with_widgets_carry_their_state():
    # Without saved state, widgets are silently missing from the static page.
    for path in _notebooks():
        nb = nbformat.read(path, as_version=4)
        views = [o for cell in nb.cells for o in cell.get("outputs", [])
                 if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
        assert not views or state.get("state"), (
            f"{path.relative_to(REPO_ROOT)}: widget outputs but no saved widget state; "
            "re-run it with jupyter nbconvert --to notebook --execute --inplace")


def test_fixture_notebook_carries_widget_state():
    nb = nbformat.read(REPO_ROOT / "tests/fixtures/offline_demo.ipynb", as_version=4)
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert state, "re-run tests/fixtures/make_offline_demo.py"


def test_nbval_hook_skips_figure_outputs_only():
    from prefixlab.presenting.book.nbval_hooks import SKIP_MIME_TYPES, pytest_collectstart

    class FakeNotebook:
        path = Path("book/x.ipynb")
        skip_compare = ("metadata", "traceback")

    class FakeModule:
        path = Path("tests/test_x.py")

    nb = FakeNotebook()
    pytest_collectstart(nb)
    assert nb.skip_compare == ("metadata", "traceback", *SKIP_MIME_TYPES)
    assert "text/plain" not in nb.skip_compare
    pytest_collectstart(FakeModule())  # not a notebook: no attribute needed, no error


def test_sanitizer_file_parses_and_rewrites():
    from nbval.plugin import get_sanitize_patterns

    patterns = get_sanitize_patterns((REPO_ROOT / ".nbval_sanitize.cfg").read_text(encoding="utf-8"))
    assert len(patterns) == 2
    text = "<Foo at 0x7f3a2b1c9d40> wrote /tmp/tmpab12_x9z/MEMORY.md"
    for regex, replace in patterns:
        text = re.sub(regex, replace, text)
    assert text == "<Foo at 0xADDRESS> wrote /tmp/TMPDIR/MEMORY.md"


def test_provenance_note_orders_fields_and_rejects_empty():
    from prefixlab.presenting.book import provenance_note

    note = provenance_note(model="m", recording="r.jsonl", extra="x")
    assert repr(note) == "口径 · 记录: r.jsonl; 模型: m; extra: x"
    assert "<dt>记录</dt><dd>r.jsonl</dd>" in note._repr_html_()
    with pytest.raises(ValueError, match="at least one"):
        provenance_note()
    with pytest.raises(ValueError, match="model"):
        provenance_note(recording="r", model=" ")
