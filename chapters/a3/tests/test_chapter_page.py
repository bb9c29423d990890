"""Chapter A3's page (book/a3/index) links the glossary and the first lesson; the lesson opens with its
picture, cites the projects it explains, and shows none of its exercises' answers."""
from pathlib import Path

import nbformat

BOOK = Path(__file__).resolve().parents[3] / "book" / "a3"


def markdown(name: str) -> str:
    return "".join(c.source for c in nbformat.read(BOOK / name, as_version=4).cells if c.cell_type == "markdown")


def rendered(name: str) -> str:
    """Everything a reader of the built page can see: the markdown and every stored output."""
    nb = nbformat.read(BOOK / name, as_version=4)
    out = [markdown(name)]
    for c in nb.cells:
        for o in c.get("outputs", []):
            out.append(o.get("text", "") + "".join(str(v) for v in o.get("data", {}).values()))
    return "\n".join(out)


def test_the_page_links_the_glossary_and_the_first_lesson():
    text = markdown("index.ipynb")
    assert "(../glossary.md)" in text and "(a3-1-paths-and-commands.ipynb)" in text


def test_the_lesson_cites_the_four_projects():
    source = "".join(c.source for c in nbformat.read(BOOK / "a3-1-paths-and-commands.ipynb", as_version=4).cells)
    for card in ("rasbt-path-check", "mini-swe-agent-local-run", "codex-sandbox-policy", "claude-code-permission-modes"):
        assert f'citation_card("{card}")' in source


def test_no_exercise_answer_is_shown():
    text = rendered("a3-1-paths-and-commands.ipynb")
    # the string-prefix outcome of each case appears nowhere (the path table shows two ways only)
    assert "string prefix" not in text
    assert "SSH_AUTH_SOCK 名字里没有" not in text  # exercise 3's verdict


def test_every_a3_recording_is_in_the_table():
    import json

    from prefixlab.recording.experiments import experiments
    from prefixlab.recording.format import find_recordings

    names = {exp.recorder.experiment for exp in experiments().values() if exp.chapter == "a3"}
    recordings = [p.name for p in find_recordings()
                  if json.loads((p / "manifest.json").read_text(encoding="utf-8"))["experiment"] in names]
    assert recordings
    nb = nbformat.read(BOOK / "index.ipynb", as_version=4)
    table = next(c for c in nb.cells if c.cell_type == "code" and "LESSON_OF" in c.source)
    shown = "".join(o["data"]["text/plain"] for o in table.outputs if "data" in o)
    assert [r for r in recordings if f"data/recordings/{r} " not in shown] == []


def test_no_verdict_of_a_checker_is_stored_in_either_lesson():
    for name in ("a3-1-paths-and-commands.ipynb", "a3-2-approval.ipynb", "a3-3-prompt-injection.ipynb"):
        nb = nbformat.read(BOOK / name, as_version=4)
        printed = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
        assert "对:" not in printed and "不对" not in printed, name
