"""``python -m prefixlab.record_t10``: record the T10 experiment against a real server.

The command lives in ``prefixlab.recording.recorder``; this entry point keeps the short
name that the README, the Makefile and the recordings use.
"""
import sys

from prefixlab.recording.recorder import main

if __name__ == "__main__":
    sys.exit(main())
