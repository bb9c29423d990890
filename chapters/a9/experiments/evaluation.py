"""Record A9·1's evaluation: the live model on the task set under two designs, many seeds, and the oracle.

    python -m prefixlab server fetch --model live      # once
    python -m prefixlab record a9 data/recordings/a9-eval-qwen2.5-coder-0.5b-llamacpp --designs text,constrained,oracle --minutes 14
    python -m prefixlab record a9 data/recordings/a9-eval-qwen2.5-coder-0.5b-llamacpp --designs text,constrained,oracle --resume --minutes 14

The same command as ``python -m prefixlab eval`` (``prefixlab.eval``): the harness is generic, this
module only registers the chapter's recording so that the replay test (tests/test_replay.py) rebuilds it.
"""
from __future__ import annotations

from prefixlab.eval import cli
from prefixlab.eval.harness import EvalRecorder, replay_options

RECORDER = EvalRecorder


def main(argv=None, prog: str | None = None) -> int:
    return cli.main(argv)


def replay_recorder(recording, out, connect, restart, log):
    """The recorder that made ``recording`` and its ``record`` options (tests/test_replay.py)."""
    kwargs, options = replay_options(recording)
    return EvalRecorder(out, connect, restart, recording.provenance, "local", log=log, **kwargs), options
