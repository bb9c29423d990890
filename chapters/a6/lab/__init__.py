"""Chapter A6's lesson labs (labs/a6/): plain state a test drives, and a thin ipywidgets app on it.

``instruction_files``   A6·1 (labs/a6/instruction-files.ipynb): the T11 requests and the AGENTS.md loader
``skills``              A6·3 (labs/a6/skills.ipynb): skills' cost, the skills loader, a request with a skill added
``session_tree``        A6·4 (labs/a6/session-tree.ipynb): the T13 session tree, branch switching, a sandbox
``retrieval``           A6·R (labs/a6/memory-retrieval.ipynb): ask the notes anything, see what BM25 picks

The widget base (``WidgetApp``) and the course-wide calculator lab are in ``prefixlab.presenting.lab``.
"""
