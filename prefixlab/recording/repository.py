"""The repository an experiment's sessions work on: a base folder and overlays copied over it.

The course keeps one toy repository (``data/toy-repo``); an experiment that needs it a little
different stores only the files that differ (an overlay) and copies them over a fresh copy.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Repository:
    base: Path
    overlays: tuple[Path, ...] = ()  # copied over the base in this order; a later file wins

    def copy_to(self, target: Path) -> Path:
        """A fresh copy at ``target`` (which must not exist): the base, then every overlay over it."""
        for folder in (self.base, *self.overlays):
            if not folder.is_dir():
                raise FileNotFoundError(f"repository folder {folder} is missing")
        shutil.copytree(self.base, target)
        for overlay in self.overlays:
            shutil.copytree(overlay, target, dirs_exist_ok=True)
        return target
