"""``python -m miniagent TASK ...`` runs one task (cli.py); ``python -m miniagent session ...``
looks at a session file's tree and continues it from any entry (session_cli.py)."""
from __future__ import annotations

import sys

from .cli import main as run_agent
from .session_cli import main as session_main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    return session_main(argv[1:], run_agent=run_agent) if argv[:1] == ["session"] else run_agent(argv)


if __name__ == "__main__":
    sys.exit(main())
