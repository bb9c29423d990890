"""Chapter A6's page (book/a6/index)'s table of recordings names every recording shipped under data/recordings/."""
from pathlib import Path

import nbformat

from prefixlab.recording.format import find_recordings

LANDING = Path(__file__).resolve().parents[3] / "book" / "a6" / "index.ipynb"


def test_every_shipped_recording_is_in_the_landing_table():
    nb = nbformat.read(LANDING, as_version=4)
    table = next(c for c in nb.cells if c.cell_type == "code" and "LESSON_OF" in c.source)
    shown = "".join(o["data"]["text/plain"] for o in table.outputs if "data" in o)
    missing = [p.name for p in find_recordings() if f"data/recordings/{p.name} " not in shown]
    assert not missing, f"add these recordings to LESSON_OF on the landing page: {missing}"
