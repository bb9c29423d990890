"""prefixlab: the measuring instruments of the course (server launcher, tokenizer, cache rules, ...).

Each module does one job; import the one you need, e.g. ``from prefixlab.server import LlamaServer``.
"""
