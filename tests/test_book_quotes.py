"""prefixlab.presenting.book.sphinx_quotes: straight double quotes in the prose are paired per paragraph
(smart quotes took every quote after a Chinese character for a closing one); code is never touched."""
from __future__ import annotations

import io
from pathlib import Path

from prefixlab.presenting.book.sphinx_quotes import pair_quotes


def test_quotes_alternate_across_the_pieces_of_a_paragraph():
    assert pair_quotes(['叫"压缩",见"', "术语表", '"。']) == ["叫“压缩”,见“", "术语表", "”。"]
    assert pair_quotes(['只有一个"引号']) == ['只有一个"引号']  # odd: left as written
    assert pair_quotes(["没有引号"]) == ["没有引号"]


def test_a_built_page_pairs_prose_quotes_and_leaves_code_alone(tmp_path):
    body = ('这是"摘要的摘要",也叫"**层层摘要**"。\n\n'
            '代码 `x = "a"` 不动,"这一句"照样配对。\n\n'
            '```python\nprint("hi")\n```\n\n'
            '## 标题里的"引号"\n\n'
            '一个孤零零的"不配对。\n')
    html, warnings = _sphinx_build(tmp_path, body)
    assert not warnings.strip(), warnings
    assert "这是“摘要的摘要”,也叫“<strong>层层摘要</strong>”。" in html
    assert "“这一句”照样配对" in html and "&quot;a&quot;</span></code>" in html
    assert '<span class="s2">"hi"</span>' in html and "标题里的“引号”" in html
    assert "一个孤零零的&quot;不配对" in html
    assert "”摘要" not in html


def _sphinx_build(tmp_path: Path, body: str) -> tuple[str, str]:
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    src = tmp_path / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text('extensions = ["myst_parser", "prefixlab.presenting.book.sphinx_quotes"]\n'
                                 'language = "zh_CN"\nsmartquotes = False\n', encoding="utf-8")
    (src / "index.md").write_text(f"# 页\n\n{body}\n", encoding="utf-8")
    warnings = io.StringIO()
    with docutils_namespace():
        app = Sphinx(str(src), str(src), str(tmp_path / "out"), str(tmp_path / "doctrees"), "html",
                     status=None, warning=warnings, freshenv=True)
        app.build()
    return (tmp_path / "out" / "index.html").read_text(encoding="utf-8"), warnings.getvalue()
