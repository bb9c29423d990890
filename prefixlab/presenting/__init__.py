"""Presenting: what the book, the labs and the command line show of the cache layer's numbers.

``report``      ``python -m prefixlab.report``: the calculator's per-request table of any recording
``bill``        ``python -m prefixlab bill``: the whole bill of a session file or recording (every request,
                session and child; both usage conventions; priced under a chosen rule), and a session's
                ledger split by what a tally of the context now sees
``cost``        the price of one solved task: an evaluation's bill (tokens, cache reads, dollars under every
                provider rule) divided by its passes, undefined when nothing passed
``scenarios``   one cache rule, one k: the rows it predicts (the calculator lab and chapter figures draw them)
``evolution``   a chapter's evolution map (data in ``data/<chapter>/evolution.yml``), shown by every lesson
``agent_picture`` one round of the agent loop, drawn at the start of every lesson: the parts earlier lessons
                built lit, "你在这里" on this lesson's (data in ``data/agent-picture.yml``)
``labels``      the Chinese names of session kinds and of the chapters' experiment groups, in one place
``answers``     what every exercise checker shares: the prompt for a missing answer, the number checks
``lab``         the course-wide labs: the prefix-cache calculator (state, text and HTML, ipywidgets)
                and ``WidgetApp``, the base every lesson lab builds on
``book``        notebook helpers (figures, 口径 notes, citation cards, glue, tables), Sphinx extensions
                (assets, citations, the course map), nbval hooks

The top layer: computes nothing itself, asks ``prefixlab.cache`` and ``prefixlab.recording``. It serves
every chapter and names none: a lesson's own figures, exercises and lab apps live in ``chapters/<chapter>/``.
"""
