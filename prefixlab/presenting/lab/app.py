"""What every lab app shares: shown as its widgets, or as one line of text where there is no kernel."""
from __future__ import annotations


class WidgetApp:
    """Subclasses set ``self.widget`` (an ipywidgets box) and ``TEXT``."""

    TEXT = "(交互需要内核:本地 JupyterLab 或 Binder)"

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.TEXT  # the widget's own repr is long and says nothing
        return bundle
