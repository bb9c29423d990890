"""A7·1 什么时候分出去: read 30 plugins alone, or hand the reading to an explorer child.

    python -m prefixlab record a7-1 OUT

The recorder and its sessions are described in ``delegation.py`` (shared with A7·2).
"""
from chapters.a7.experiments.delegation import ExploreRecorder, explore_main, replay_recorder

RECORDER = ExploreRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main = explore_main
__all__ = ["RECORDER", "main", "replay_recorder"]
