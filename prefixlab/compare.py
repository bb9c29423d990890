"""``python -m prefixlab.compare``: compare two recordings request by request.

The command lives in ``prefixlab.recording.compare``; this entry point keeps the short
name that the README, the Makefile and the recordings use.
"""
import sys

from prefixlab.recording.compare import main

if __name__ == "__main__":
    sys.exit(main())
