"""What every lab app shares: shown as its widgets, or as one line of text where there is no kernel."""
from __future__ import annotations

import html

# Where the widgets are not drawn (a notebook opened but not run yet, the static book's text), the
# cell shows this: a learner in JupyterLab only has to run the cell.
NO_KERNEL = "控件还没画出来:在 JupyterLab 里运行这个单元格(或“Run All”)就会出现;静态网页上要交互,用页面顶部的按钮在 Binder 里打开"

# A text panel: scrolls instead of growing the page, and wraps only between words (a path such as
# units/convert.py is never split; a line too long for the box scrolls sideways).
PANEL_STYLE = ("white-space:pre-wrap;word-break:normal;overflow-wrap:normal;max-height:28em;overflow:auto;"
               "margin:0.3em 0;padding:0.4em;border:1px solid #e5e7eb")


def panel(text: str, wrap: bool = True) -> str:
    """``text`` as a scroll box (``wrap=False``: lines never wrap, e.g. a tree drawn with box characters)."""
    style = PANEL_STYLE if wrap else PANEL_STYLE.replace("white-space:pre-wrap", "white-space:pre")
    return f'<pre class="lab-panel" style="{style}">{html.escape(text)}</pre>'


def error_html(message: str) -> str:
    return f'<div class="lab-error" style="color:#b91c1c">⚠ {html.escape(message)}</div>'


class WidgetApp:
    """Subclasses set ``self.widget`` (an ipywidgets box) and ``TITLE`` (what the app is, in Chinese)."""

    TITLE = "实验室控件"
    TEXT = f"{TITLE}({NO_KERNEL})"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.TEXT = f"{cls.TITLE}({NO_KERNEL})"

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.TEXT  # the widget's own repr is long and says nothing
        return bundle
