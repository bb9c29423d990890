"""Chapter A1's page (book/a1/index): its table of recordings names every recording an A1 experiment
made, and it links the glossary, the first lesson and the lab."""
import json
from pathlib import Path

import nbformat

from prefixlab.recording.experiments import experiments
from prefixlab.recording.format import find_recordings

PAGE = Path(__file__).resolve().parents[3] / "book" / "a1" / "index.ipynb"


def test_every_a1_recording_is_in_the_table():
    names = {exp.recorder.experiment for exp in experiments().values() if exp.chapter == "a1"}
    recordings = [p.name for p in find_recordings()
                  if json.loads((p / "manifest.json").read_text(encoding="utf-8"))["experiment"] in names]
    assert recordings
    nb = nbformat.read(PAGE, as_version=4)
    table = next(c for c in nb.cells if c.cell_type == "code" and "LESSON_OF" in c.source)
    shown = "".join(o["data"]["text/plain"] for o in table.outputs if "data" in o)
    assert [r for r in recordings if f"data/recordings/{r} " not in shown] == []


def test_the_page_links_the_first_lesson():
    text = "".join(c.source for c in nbformat.read(PAGE, as_version=4).cells if c.cell_type == "markdown")
    assert "(a1-1-the-loop.ipynb)" in text
