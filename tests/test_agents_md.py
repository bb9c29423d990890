import json
import shutil
from pathlib import Path

import pytest

from miniagent.agents_md import AGENTS_MD_CAP, agents_md_files, find_repo_root, read_agents_md
from miniagent.modes import for_mode
from miniagent.memory import MemoryStore
from miniagent.prompt import BASE_PROMPT
from prefixlab.paths import TOY_REPO

ROOT = Path(__file__).resolve().parents[1]
T10_RECORDING = ROOT / "data" / "recordings" / "t10-smollm2-llamacpp" / "refresh-day1.jsonl"


def _tree(tmp_path, files: dict[str, str | bytes], git=True) -> Path:
    """A repository under tmp_path/repo with the given files; returns the repo root."""
    repo = tmp_path / "repo"
    repo.mkdir()
    if git:
        (repo / ".git").mkdir()
    for name, content in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return repo


def test_a_single_agents_md_gives_the_recorded_t10_system_prompt_byte_for_byte(tmp_path):
    # The recorder ran on a copy of data/toy-repo in a temporary directory (no .git above it): do the same.
    repo = shutil.copytree(TOY_REPO, tmp_path / "repo")
    provider = for_mode("refresh", BASE_PROMPT, read_agents_md(repo), MemoryStore(tmp_path / "MEMORY.md"))
    first_call = next(e for e in map(json.loads, T10_RECORDING.read_text(encoding="utf-8").splitlines())
                      if e["type"] == "model_call")
    system = first_call["request"]["messages"][0]
    assert system["role"] == "system"
    assert provider() == system["content"]


def test_levels_from_the_root_down_each_named_and_a_missing_level_skipped(tmp_path):
    repo = _tree(tmp_path, {"AGENTS.md": "root rules\n", "services/api/AGENTS.md": "api rules\n",
                            "services/api/handlers/x.py": ""})  # no services/AGENTS.md
    workspace = repo / "services" / "api" / "handlers"
    assert find_repo_root(workspace) == repo
    assert agents_md_files(workspace) == (repo, [repo / "AGENTS.md", repo / "services/api/AGENTS.md"])
    assert read_agents_md(workspace) == ("--- AGENTS.md ---\n\nroot rules\n\n"
                                         "--- services/api/AGENTS.md ---\n\napi rules")


def test_a_file_below_the_workspace_or_beside_it_is_not_read(tmp_path):
    repo = _tree(tmp_path, {"AGENTS.md": "root", "a/AGENTS.md": "a", "a/deeper/AGENTS.md": "deeper",
                            "b/AGENTS.md": "b"})
    assert read_agents_md(repo / "a") == "--- AGENTS.md ---\n\nroot\n\n--- a/AGENTS.md ---\n\na"


def test_an_empty_file_adds_no_level(tmp_path):
    repo = _tree(tmp_path, {"AGENTS.md": "root", "sub/AGENTS.md": "\n  \n"})
    assert read_agents_md(repo / "sub") == "root"  # one file with text: no label, as before


def test_the_cap_cuts_with_a_visible_marker_saying_how_much(tmp_path):
    repo = _tree(tmp_path, {"AGENTS.md": "a" * 90 + "é" * 10})  # 110 bytes
    text = read_agents_md(repo, cap=100)
    assert text == "a" * 90 + "é" * 5 + "\n\n[... 10 bytes of AGENTS.md cut: the limit is 100 bytes ...]"
    # A cut inside a two-byte character keeps the whole characters before it.
    assert read_agents_md(repo, cap=101).startswith("a" * 90 + "é" * 5 + "\n\n[... 10 bytes")
    assert read_agents_md(repo, cap=110) == "a" * 90 + "é" * 10  # exactly at the cap: untouched


def test_the_cap_applies_to_all_levels_together_root_first(tmp_path):
    repo = _tree(tmp_path, {"AGENTS.md": "r" * AGENTS_MD_CAP, "sub/AGENTS.md": "the closest rules"})
    text = read_agents_md(repo / "sub")
    assert text.startswith("--- AGENTS.md ---\n\nrrr") and "the closest rules" not in text
    assert text.endswith(f"bytes of AGENTS.md cut: the limit is {AGENTS_MD_CAP} bytes ...]")


def test_a_file_that_is_not_utf8_is_read_with_a_visible_note(tmp_path):
    repo = _tree(tmp_path, {"AGENTS.md": "root", "sub/AGENTS.md": "用制表符缩进".encode("gbk")})
    text = read_agents_md(repo / "sub")
    assert text.startswith("--- AGENTS.md ---\n\nroot\n\n--- sub/AGENTS.md ---\n\n\ufffd")
    assert text.endswith("[note: sub/AGENTS.md is not valid UTF-8; undecodable bytes are shown as \ufffd]")


def test_outside_a_git_repository_only_the_workspace_is_read(tmp_path):
    outer = _tree(tmp_path, {"AGENTS.md": "outer rules", "ws/AGENTS.md": "workspace rules"}, git=False)
    if find_repo_root(outer) != outer:
        pytest.skip("the temporary directory is itself inside a git repository")
    workspace = outer / "ws"
    assert find_repo_root(workspace) == workspace
    assert read_agents_md(workspace) == "workspace rules"


def test_a_git_file_marks_the_root_too(tmp_path):
    # A worktree or submodule has a .git file, not a directory.
    repo = _tree(tmp_path, {".git": "gitdir: /elsewhere", "AGENTS.md": "root", "sub/AGENTS.md": "sub"}, git=False)
    assert find_repo_root(repo / "sub") == repo
    assert read_agents_md(repo / "sub").startswith("--- AGENTS.md ---")


def test_every_file_the_cap_cuts_or_leaves_out_is_named(tmp_path):
    from miniagent.agents_md import over_the_cap
    repo = _tree(tmp_path, {"AGENTS.md": "r" * 60, "a/AGENTS.md": "s" * 60, "a/b/AGENTS.md": "t" * 60,
                            "a/b/c/AGENTS.md": "u" * 10})
    workspace = repo / "a" / "b" / "c"
    full = read_agents_md(workspace, cap=10**9)
    assert over_the_cap(workspace, cap=len(full.encode())) == []
    # The labelled root file takes 79 bytes, "\n\n", then a/AGENTS.md's 81: a cap of 100 cuts it after 19.
    assert over_the_cap(workspace, cap=100) == [
        "a/AGENTS.md: cut after 19 of 81 bytes (the AGENTS.md limit is 100 bytes)",
        "a/b/AGENTS.md: left out (the AGENTS.md limit is 100 bytes)",
        "a/b/c/AGENTS.md: left out (the AGENTS.md limit is 100 bytes)"]
    # The prompt's own marker is unchanged (recorded prompts and the A6·1 explorer depend on its bytes).
    assert read_agents_md(workspace, cap=100).endswith("\n\n[... 184 bytes of AGENTS.md cut: the limit is 100 bytes ...]")


def test_the_command_line_names_the_files_the_cap_leaves_out(tmp_path, capsys):
    from miniagent.cli import main
    from fake_server import FakeChatServer, completion
    repo = _tree(tmp_path, {"AGENTS.md": "r" * AGENTS_MD_CAP, "sub/AGENTS.md": "the closest rules"})
    with FakeChatServer([(200, completion({"role": "assistant", "content": "done"}))]) as srv:
        assert main(["hi", "-w", str(repo / "sub"), "--server", srv.url, "--memory", str(tmp_path / "M.md"),
                     "--session", str(tmp_path / "s.jsonl")]) == 0
    err = capsys.readouterr().err
    assert "miniagent: AGENTS.md: AGENTS.md: cut after" in err
    assert f"miniagent: AGENTS.md: sub/AGENTS.md: left out (the AGENTS.md limit is {AGENTS_MD_CAP} bytes)" in err
