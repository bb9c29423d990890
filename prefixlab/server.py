"""``python -m prefixlab.server``: fetch, build and run the course's llama-server.

The command lives in ``prefixlab.serving.server``; this entry point keeps the short
name that the README, the Makefile and data/tokenizers/README.md use.
"""
import sys

from prefixlab.serving.server import main

if __name__ == "__main__":
    sys.exit(main())
