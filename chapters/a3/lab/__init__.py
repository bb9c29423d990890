"""Chapter A3's lab (labs/a3/workspace.ipynb): plain state a test drives, and a thin ipywidgets app on it.

``workspace``   A3·1 and A3·2: try a path against the workspace check, run a command case three ways,
                see which environment variables reach a command, and which commands an allow-list rule covers

The widget base (``WidgetApp``) is in ``prefixlab.presenting.lab``.
"""
