import json
import shutil

from prefixlab.recording.compare import compare, main
from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import load


def test_a_recording_equals_itself_and_a_changed_count_is_found(tmp_path, capsys):
    shipped = RECORDINGS / "t10-smollm2-llamacpp"  # its session files are named below
    copy = tmp_path / "copy"
    shutil.copytree(shipped, copy)
    assert compare(load(shipped), load(copy)) == []
    path = copy / "frozen-day2.jsonl"
    lines = path.read_text().splitlines()
    entry = json.loads(lines[2])
    entry["response"]["usage"]["prompt_tokens_details"]["cached_tokens"] += 1
    lines[2] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n")
    diffs = compare(load(shipped), load(copy))
    assert len(diffs) == 1 and diffs[0].startswith("frozen-day2 round 1")
    assert main([str(shipped), str(copy)]) == 1
    assert main([str(shipped), str(tmp_path / "nope")]) == 2
    assert "no manifest.json" in capsys.readouterr().err
