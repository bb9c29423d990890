"""Chapter A6's page (book/a6/index)'s table of recordings names every recording of chapter A6 shipped
under data/recordings/ (every recording whose experiment one of A6's experiments records)."""
import json
from pathlib import Path

import nbformat

from prefixlab.recording import experiments
from prefixlab.recording.format import find_recordings

LANDING = Path(__file__).resolve().parents[3] / "book" / "a6" / "index.ipynb"


def chapter_recordings(chapter: str) -> list[Path]:
    mine = {exp.recorder.experiment for exp in experiments.experiments().values() if exp.chapter == chapter}
    return [p for p in find_recordings()
            if json.loads((p / "manifest.json").read_text(encoding="utf-8"))["experiment"] in mine]


def test_every_shipped_recording_is_in_the_landing_table():
    nb = nbformat.read(LANDING, as_version=4)
    table = next(c for c in nb.cells if c.cell_type == "code" and "LESSON_OF" in c.source)
    shown = "".join(o["data"]["text/plain"] for o in table.outputs if "data" in o)
    recordings = chapter_recordings("a6")
    assert len(recordings) == 10  # T10 ... T14: every recording the chapter's table lists
    missing = [p.name for p in recordings if f"data/recordings/{p.name} " not in shown]
    assert not missing, f"add these recordings to LESSON_OF on the landing page: {missing}"
