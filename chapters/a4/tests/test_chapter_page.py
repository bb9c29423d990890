"""Chapter A4's page (book/a4/index): its table of recordings names every recording an A4 experiment
made, and it links the lessons that are written."""
import json
from pathlib import Path

import nbformat

from prefixlab.recording.experiments import experiments
from prefixlab.recording.format import find_recordings

PAGE = Path(__file__).resolve().parents[3] / "book" / "a4" / "index.ipynb"


def test_every_a4_recording_is_in_the_table():
    names = {exp.recorder.experiment for exp in experiments().values() if exp.chapter == "a4"}
    recordings = [p.name for p in find_recordings()
                  if json.loads((p / "manifest.json").read_text(encoding="utf-8"))["experiment"] in names]
    assert recordings
    nb = nbformat.read(PAGE, as_version=4)
    table = next(c for c in nb.cells if c.cell_type == "code" and "LESSON_OF" in c.source)
    shown = "".join(o["data"]["text/plain"] for o in table.outputs if "data" in o)
    assert [r for r in recordings if f"data/recordings/{r} " not in shown] == []


def test_the_page_links_the_glossary_and_the_first_lesson():
    text = "".join(c.source for c in nbformat.read(PAGE, as_version=4).cells if c.cell_type == "markdown")
    assert "(../glossary.md)" in text and "(a4-1-prefix-cache.ipynb)" in text
