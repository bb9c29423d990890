"""``python -m prefixlab.record_t14``: record T14 (side lesson A6·R, the whole memory file or only
what matches) against the course's llama-server. The command lives in ``prefixlab.recording.t14``."""
import sys

from prefixlab.recording.t14 import main

if __name__ == "__main__":
    sys.exit(main())
