"""Presenting: what the book, the labs and the command line show of the cache layer's numbers.

``charts``     the chapter's plotly figures (the prefix break per rule and k, the memory swimlane)
``swimlane``   what memory is on disk and what is in the prompt, at every recorded request
``lab``        the prefix-cache calculator lab: plain state, its text and HTML, the ipywidgets
``report``     ``python -m prefixlab.report``: the calculator's per-request table
``exercises``  checkers for the chapter's exercises
``labels``     the Chinese names of the groups and session kinds, in one place
``book``       notebook helpers (figures, 口径 notes, citation cards, glue), Sphinx extensions, nbval hooks

The top layer: computes nothing itself, asks ``prefixlab.cache`` and ``prefixlab.recording``.
"""
