"""Chapter A6's data: one toy repository, and an overlay stores only the files an experiment changes."""
from chapters.a6.experiments import instruction_files, memory_timing, memory_vs_retrieval, session_tree, skills
from chapters.a6.paths import T12_OVERLAY
from prefixlab.paths import TOY_REPO


def files(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_an_overlay_holds_only_files_that_differ_from_the_toy_repository():
    toy, overlay = files(TOY_REPO), files(T12_OVERLAY)
    assert overlay and all(toy.get(path) != data for path, data in overlay.items())


def test_every_experiment_works_on_the_toy_repository(tmp_path):
    toy = files(TOY_REPO)
    for recorder in (memory_timing.T10Recorder, instruction_files.T11Recorder, session_tree.T13Recorder,
                     memory_vs_retrieval.T14Recorder):
        assert files(recorder.repository.copy_to(tmp_path / recorder.experiment)) == toy
    t12 = files(skills.T12Recorder.repository.copy_to(tmp_path / "T12"))
    assert t12 == toy | files(T12_OVERLAY)
