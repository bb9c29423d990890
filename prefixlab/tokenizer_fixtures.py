"""``python -m prefixlab.tokenizer_fixtures``: record llama-server's answers to the tokenizer cases.

The command lives in ``prefixlab.recording.tokenizer_fixtures``; this entry point keeps the short
name that the README, the Makefile and the recordings use.
"""
import sys

from prefixlab.recording.tokenizer_fixtures import main
# data/tokenizers/corpus/server-random.json names its generator by this module's name
from prefixlab.recording.tokenizer_fixtures import random_cases  # noqa: F401, E402

if __name__ == "__main__":
    sys.exit(main())
