"""prefixlab: the course's measuring instruments, in five layers; each imports only from those above it.

``paths``        where things are in the repository (data/, recordings, tokenizer, prices, ...)
``serving``      the real model server: build and run llama-server, one HTTP client for it
``recording``    what was sent to a server and what it answered: recorder, format, verify, compare,
                 the registry of the chapters' experiments
``eval``         does the agent do the task: a task set with hidden checks, the harness that runs miniagent
                 on each task in a fresh workspace and writes one result row per run, the oracle
``cache``        from a recorded request to what a prefix cache serves: tokenizer, template,
                 attribution, the cache rules, calculator, counterfactuals, prices
``presenting``   what the book, the labs and the command line show: the calculator lab, the report,
                 the evolution map, the agent picture, the book's notebook and Sphinx helpers

One exception to the order: ``recording.verify`` re-tokenizes with ``cache.tokenizer``.
Import the module you need, e.g. ``from prefixlab.cache import calculator``.

One command line, ``python -m prefixlab <verb>``; ``--help`` lists the verbs:

``__main__``     ``server``, ``record NAME``, ``verify``, ``compare``, ``report``, ``eval``,
                 ``gguf-tokenizer``, ``tokenizer-fixtures``

The other modules at this level are entry points only, the older names that the README, data/
and the recordings use; each runs the command of the module it names:

``server``              ``python -m prefixlab.server``: ``serving.server``
``verify``              ``python -m prefixlab.verify``: ``recording.verify``
``compare``             ``python -m prefixlab.compare``: ``recording.compare``
``report``              ``python -m prefixlab.report``: ``presenting.report``
``gguf_tokenizer``      ``python -m prefixlab.gguf_tokenizer``: ``cache.gguf_tokenizer``
``tokenizer_fixtures``  ``python -m prefixlab.tokenizer_fixtures``: ``recording.tokenizer_fixtures``
``record_...``          an experiment's older name: each runs the experiment that registered it as
                        its alias (``python -m prefixlab record --list`` shows which)

prefixlab holds no lesson or experiment: the chapters (``chapters/<chapter>``) hold them and
register their experiments (``recording.experiments``).
"""
