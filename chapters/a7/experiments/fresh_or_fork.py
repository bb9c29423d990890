"""A7·2 全新还是分叉: one child, fresh or forked, and what it does to the parent's cache.

    python -m prefixlab record a7-2 OUT [--only a7-2-child-one-slot]

The recorder and its sessions are described in ``delegation.py`` (shared with A7·1).
"""
from chapters.a7.experiments.delegation import SETUPS, ChildRecorder, child_main, replay_recorder

RECORDER = ChildRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main = child_main
__all__ = ["RECORDER", "SETUPS", "main", "replay_recorder"]
