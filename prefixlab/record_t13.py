"""``python -m prefixlab.record_t13``: record T13 (lesson A6·4, the session is a tree) against
the course's llama-server. The command lives in ``prefixlab.recording.t13``."""
import sys

from prefixlab.recording.t13 import main

if __name__ == "__main__":
    sys.exit(main())
