"""The hash that names a recording's miniagent: every source file, its path and its bytes count."""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from prefixlab.recording.agent_source import agent_provenance, source_files, source_sha256


def package(tmp_path, files: dict[str, str]):
    root = tmp_path / "miniagent"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_the_hash_is_path_length_and_bytes_of_every_py_file_in_path_order(tmp_path):
    root = package(tmp_path, {"b.py": "B", "a.py": "A", "sub/c.py": "C", "notes.txt": "not source"})
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert [rel for rel, _ in source_files(root)] == ["miniagent/a.py", "miniagent/b.py", "miniagent/sub/c.py"]
    expected = hashlib.sha256(b"miniagent/a.py\x001\x00A" b"miniagent/b.py\x001\x00B" b"miniagent/sub/c.py\x001\x00C")
    assert source_sha256(root) == expected.hexdigest()


def test_any_change_changes_it(tmp_path):
    base = source_sha256(package(tmp_path / "0", {"a.py": "xy", "b.py": "z"}))
    variants = [{"a.py": "xy ", "b.py": "z"},            # one byte more
                {"a.py": "x", "b.py": "yz"},             # text moved from one file to the next
                {"a2.py": "xy", "b.py": "z"},            # a file renamed
                {"a.py": "xy", "b.py": "z", "c.py": ""}]  # an empty file added
    hashes = [source_sha256(package(tmp_path / str(i), files)) for i, files in enumerate(variants, 1)]
    assert base not in hashes and len(set(hashes)) == len(hashes)
    copy = tmp_path / "copy" / "miniagent"
    shutil.copytree(tmp_path / "0" / "miniagent", copy)
    assert source_sha256(copy) == base  # where the package lives does not matter


def test_the_provenance_names_the_imported_miniagent():
    import miniagent

    info = agent_provenance()
    assert info["package"] == "miniagent" and len(info["source_sha256"]) == 64
    assert info["files"] == len(list(Path(miniagent.__file__).parent.rglob("*.py")))
