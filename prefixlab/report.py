"""``python -m prefixlab.report``: the calculator's per-request table for a recording.

The command lives in ``prefixlab.presenting.report``; this entry point keeps the short
name that the README and data/recordings/API-MAPPING.md use.
"""
import sys

from prefixlab.presenting.report import main

if __name__ == "__main__":
    sys.exit(main())
