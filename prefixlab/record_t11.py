"""``python -m prefixlab.record_t11``: record T11 (lesson A6·1, where a human rule lives) against
the course's llama-server. The command lives in ``prefixlab.recording.t11``."""
import sys

from prefixlab.recording.t11 import main

if __name__ == "__main__":
    sys.exit(main())
