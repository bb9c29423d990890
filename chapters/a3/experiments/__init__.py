"""Chapter A3's experiments: what each lesson records against a real server.

None yet: A3·1 measures commands and paths on the reader's own machine (``chapters.a3.escapes``),
no server involved.
"""
EXPERIMENTS: list = []
