"""An old command name, kept because recordings store the command that made them: it runs the
experiment that registered this name as its ``alias`` (``python -m prefixlab record --list``)."""
import sys

from prefixlab.recording.experiments import run_alias


def main(argv=None) -> int:
    return run_alias(__spec__.name, argv)


if __name__ == "__main__":
    sys.exit(main())
