"""Chapter A5's data: the toy repository, plus an overlay that only adds the readings the sessions read."""
from chapters.a5.experiments.context_limit import OverflowRecorder
from chapters.a5.experiments.tool_output_masking import MaskingRecorder
from chapters.a5.paths import MASKING_DIR, OVERFLOW_DIR, REPO_OVERLAY
from prefixlab.paths import TOY_REPO


def files(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_overlay_only_adds_the_readings():
    toy, overlay = files(TOY_REPO), files(REPO_OVERLAY)
    assert overlay and all(path.startswith("readings/") and path not in toy for path in overlay)


def test_both_experiments_work_on_the_toy_repository_with_the_readings(tmp_path):
    for recorder in (OverflowRecorder, MaskingRecorder):
        assert files(recorder.repository.copy_to(tmp_path / recorder.experiment)) == files(TOY_REPO) | files(REPO_OVERLAY)


def test_the_scripts_read_files_long_enough_for_a_256_token_chunk():
    # a5-2 needs every read file longer than --cache-reuse's 256 tokens; about 24 tokens a line
    assert all(len(data.splitlines()) > 12 for data in files(REPO_OVERLAY).values())
    assert (OVERFLOW_DIR / "script.yml").is_file() and (MASKING_DIR / "script.yml").is_file()
