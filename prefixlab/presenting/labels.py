"""The Chinese names the book, the labs and the figures give to recorded session kinds and groups.

Session kinds belong to the recording format, so they are named here. Groups belong to a chapter's
experiments: each chapter names its own in ``data/<chapter>/groups.yml``, merged here, so the
instruments show them without knowing any chapter.
"""
from __future__ import annotations

import yaml

from prefixlab.paths import DATA

KIND_LABELS = {"main": "主会话", "fork": "分叉", "counterfactual": "录制的反事实", "live": "模型自己驱动",
               "replay": "重放(原样再发一遍)"}


def chapter_group_labels() -> dict[str, str]:
    """Every chapter's group names; a group named by two chapters differently is an error."""
    labels: dict[str, str] = {}
    for path in sorted(DATA.glob("*/groups.yml")):
        for group, label in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            if labels.get(group, label) != label:
                raise ValueError(f"{path}: group {group!r} is already named {labels[group]!r}, not {label!r}")
            labels[group] = label
    return labels


GROUP_LABELS = chapter_group_labels()
