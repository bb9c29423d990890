"""``python -m prefixlab.verify``: re-render and re-tokenize recordings offline, compare with the server.

The command lives in ``prefixlab.recording.verify``; this entry point keeps the short
name that the README, the Makefile and the recordings use.
"""
import sys

from prefixlab.recording.verify import main

if __name__ == "__main__":
    sys.exit(main())
