"""prefixlab: the course's measuring instruments, in four layers; each imports only from those above it.

    paths        where things are in the repository (data/, recordings, tokenizer, prices, ...)
    serving      the real model server: build and run llama-server, one HTTP client for it
    recording    what was sent to a server and what it answered: recorder, format, verify, compare
    cache        from a recorded request to what a prefix cache serves: tokenizer, template,
                 attribution, the cache rules, calculator, counterfactuals, prices
    presenting   what the book, the labs and the command line show: charts, swimlane, the lab,
                 the report, the book's notebook and Sphinx helpers

One exception to the order: ``recording.verify`` re-tokenizes with ``cache.tokenizer``.
Import the module you need, e.g. ``from prefixlab.cache import calculator``.

The modules at this level besides ``paths`` are entry points only: ``python -m prefixlab.server``,
``record_t10``, ``record_t11``, ``verify``, ``compare``, ``report``, ``gguf_tokenizer``,
``tokenizer_fixtures`` (the names the README, the Makefile and the recordings use).
"""
