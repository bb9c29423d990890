"""Chapter A8's lab helpers (labs/a8/): they run in JupyterLab without a server.

``your_bill``  the bill of a shipped recording or of your own session file, split the way A8·2 splits it,
               and the lab's checkers
"""
