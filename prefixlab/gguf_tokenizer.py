"""``python -m prefixlab.gguf_tokenizer``: derive the tokenizer asset from a GGUF model file.

The command lives in ``prefixlab.cache.gguf_tokenizer``; this entry point keeps the short
name that data/tokenizers/PROVENANCE.json and the README there use.
"""
import sys

from prefixlab.cache.gguf_tokenizer import main

if __name__ == "__main__":
    sys.exit(main())
