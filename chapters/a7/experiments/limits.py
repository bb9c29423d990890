"""A7·3 任务书与上限: a vague brief and no useful limit, the same child capped, a clear brief.

    python -m prefixlab record a7-3 OUT

The recorder and its sessions are described in ``delegation.py`` (shared with A7·1 and A7·2).
"""
from chapters.a7.experiments.delegation import LimitsRecorder, limits_main, replay_recorder

RECORDER = LimitsRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main = limits_main
__all__ = ["RECORDER", "main", "replay_recorder"]
