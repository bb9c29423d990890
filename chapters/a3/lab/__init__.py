"""Chapter A3's labs (labs/a3/): plain state a test drives, and thin ipywidgets apps on it.

``workspace``   A3·1 and A3·2 (labs/a3/workspace.ipynb): try a path against the workspace check, run a command
                case three ways, see which environment variables reach a command, and which commands an
                allow-list rule covers
``injection``   A3·3 (labs/a3/injection.ipynb): what each defence does to the calls an injected text asks for,
                and the live model's recorded runs one by one

The widget base (``WidgetApp``) is in ``prefixlab.presenting.lab``.
"""
