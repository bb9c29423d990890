"""``python -m prefixlab.record_t12``: record T12 (lesson A6·3, skills inline or an index read on
demand) against the course's llama-server. The command lives in ``prefixlab.recording.t12``."""
import sys

from prefixlab.recording.t12 import main

if __name__ == "__main__":
    sys.exit(main())
