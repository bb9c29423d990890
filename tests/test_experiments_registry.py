"""The experiment registry (prefixlab.recording.experiments): chapters found at run time, one command line."""
import sys
import textwrap

import pytest

from prefixlab.recording import experiments as registry

MODULE = '''
import json
from pathlib import Path

RECORDER = object


def main(argv=None, prog=""):
    Path("{log}").write_text(json.dumps({{"argv": argv, "prog": prog}}))
    return 0
'''


@pytest.fixture
def chapters(tmp_path, monkeypatch):
    """A folder ``book_chapters/`` with chapter ``zz`` registering experiment ``zz-1`` (alias ``record_zz``)."""
    root = tmp_path / "book_chapters"
    pkg = root / "zz" / "experiments"
    pkg.mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "zz" / "__init__.py").write_text("")
    (root / "nothing_here").mkdir()  # a chapter without experiments
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        from prefixlab.recording.experiments import Experiment
        EXPERIMENTS = [Experiment("zz-1", "zz", "a toy", "book_chapters.zz.experiments.toy", {"shipped": "."},
                                  alias="record_zz")]
    '''))
    log = tmp_path / "called.json"
    (pkg / "toy.py").write_text(MODULE.format(log=log))
    monkeypatch.setattr(registry, "CHAPTERS", root)
    monkeypatch.setattr(registry.experiments, "__defaults__", (root,))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root, log
    for name in [m for m in sys.modules if m.startswith("book_chapters")]:
        del sys.modules[name]


def test_chapters_are_found_by_scanning_the_folder(chapters):
    root, _ = chapters
    assert registry.chapter_packages(root) == ["book_chapters.zz.experiments"]
    exp = registry.get("zz-1")
    assert (exp.chapter, exp.recordings, exp.recorder) == ("zz", {"shipped": "."}, object)
    assert registry.by_alias("record_zz") is exp
    with pytest.raises(registry.UnknownExperiment, match="known: zz-1"):
        registry.get("nope")


def test_record_passes_the_rest_to_the_experiment_with_the_command_as_typed(chapters):
    import json

    _, log = chapters
    assert registry.main(["zz-1", "OUT", "--port", "5"]) == 0
    assert json.loads(log.read_text()) == {"argv": ["OUT", "--port", "5"], "prog": "python -m prefixlab record zz-1"}
    assert registry.run_alias("prefixlab.record_zz", ["OUT"]) == 0
    assert json.loads(log.read_text())["prog"] == "python -m prefixlab.record_zz"


def test_without_out_the_recording_goes_to_a_new_build_folder(chapters):
    import json

    _, log = chapters
    registry.main(["zz-1", "--port", "5"])
    argv = json.loads(log.read_text())["argv"]
    assert argv[0].split("/")[-1].startswith("zz-1-") and "_build" in argv[0] and argv[1:] == ["--port", "5"]


def test_a_name_registered_twice_is_an_error(chapters):
    root, _ = chapters
    init = root / "zz" / "experiments" / "__init__.py"
    init.write_text(init.read_text() + "EXPERIMENTS = EXPERIMENTS * 2\n")
    with pytest.raises(ValueError, match="registered twice"):
        registry.experiments(root)


def test_no_chapters_folder_means_no_experiments(tmp_path):
    assert registry.chapter_packages(tmp_path / "missing") == []
