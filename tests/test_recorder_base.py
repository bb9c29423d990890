"""The experiment-neutral Recorder and the repository it copies (no server needed)."""
import pytest

from prefixlab.recording.recorder import Recorder, command_line
from prefixlab.recording.repository import Repository


def test_a_recorder_must_name_its_experiment(tmp_path):
    with pytest.raises(TypeError, match="must name its experiment"):
        Recorder(tmp_path / "out", lambda: "", lambda e: e, {}, "m")


def test_the_manifest_carries_the_subclass_s_experiment_and_nothing_of_another(tmp_path):
    base = tmp_path / "base"
    (base / "sub").mkdir(parents=True)
    (base / "a.txt").write_text("base a\n")
    (base / "sub" / "b.txt").write_text("base b\n")

    class Toy(Recorder):
        experiment = "TOY"
        repository = Repository(base)
        variants = ("one", "two")

    rec = Toy(tmp_path / "out", lambda: "", lambda e: e + 1, {"p": 1}, "m", log=lambda line: None)
    assert rec.manifest["experiment"] == "TOY" and rec.script == {} and rec.tasks == {}
    assert rec.work.name.startswith("toy-")
    workspace, memory = rec.fresh_copy("one")
    assert (workspace.root / "sub" / "b.txt").read_text() == "base b\n" and not memory.path.exists()
    assert list(rec.on_fresh_servers()) == ["one", "two"] and rec.epoch == 1
    with pytest.raises(NotImplementedError):
        rec.record()


def test_an_overlay_replaces_and_adds_files_over_the_base(tmp_path):
    base, overlay = tmp_path / "base", tmp_path / "overlay"
    (base / "sub").mkdir(parents=True)
    (overlay / "sub").mkdir(parents=True)
    (base / "a.txt").write_text("base a\n")
    (base / "sub" / "b.txt").write_text("base b\n")
    (overlay / "sub" / "b.txt").write_text("overlay b\n")
    (overlay / "new.txt").write_text("new\n")
    target = Repository(base, (overlay,)).copy_to(tmp_path / "copy")
    assert sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()) == [
        "a.txt", "new.txt", "sub/b.txt"]
    assert (target / "sub" / "b.txt").read_text() == "overlay b\n"


def test_a_missing_repository_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing"):
        Repository(tmp_path / "nope").copy_to(tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


def test_the_stored_command_is_the_command_as_typed():
    assert command_line("python -m prefixlab record x", ["OUT", "--port", "1"]) == \
        "python -m prefixlab record x OUT --port 1"
