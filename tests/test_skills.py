"""miniagent's skills: the folder loader, the index, read_skill, where the index sits, and the CLI."""
import json
import os
from pathlib import Path

import pytest

from miniagent.cli import main
from miniagent.loop import run_task
from miniagent.memory import MemoryStore
from miniagent.model import ModelReply
from miniagent.modes import for_mode
from miniagent.prompt import SystemPrompt
from miniagent.session import Session
from miniagent.skills import (DESCRIPTION_CAP, SKILLS_HEADER, TRUNCATION_MARK, SkillSet, index_entry,
                              parse_skill, split_front_matter, truncate)
from miniagent.tools import Toolbox, Workspace
from miniagent.variants.inline_skills import inline

from fake_server import FakeChatServer, completion

from chapters.a6.paths import SKILLS

OURS = SKILLS / "ours"


def write_skill(root: Path, folder: str, text: str) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill_text(name: str, description: str, body: str = "Do the thing.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}"


def test_front_matter_and_body_are_split():
    meta, body = split_front_matter(skill_text("a", "Say a.", "# A\n\nbody\n"))
    assert meta == {"name": "a", "description": "Say a."} and body == "# A\n\nbody\n"


@pytest.mark.parametrize("text, problem", [
    ("no front matter\n", "does not start with a '---'"),
    ("---\nname: a\ndescription: b\n", "no closing '---'"),
    ("---\nname: a\ndescription: a: b\n---\n", "not valid YAML at line 3"),
    ("---\n- a\n- b\n---\n", "not a mapping"),
    ("---\nname: a\n---\n", "needs a non-empty text 'description'"),
    ("---\nname: [a]\ndescription: b\n---\n", "needs a non-empty text 'name'"),
])
def test_a_malformed_skill_names_the_file_and_the_problem(tmp_path, text, problem):
    root = tmp_path / "skills"
    write_skill(root, "bad", text)
    write_skill(root, "good", skill_text("good", "Works."))
    skills = SkillSet(root)
    assert [s.name for s in skills.load()] == ["good"]  # the others still load
    assert len(skills.problems) == 1 and skills.problems[0].startswith("skills/bad/SKILL.md: ")
    assert problem in skills.problems[0]


def test_a_duplicate_name_is_reported_and_the_first_kept(tmp_path):
    root = tmp_path / "skills"
    write_skill(root, "a", skill_text("same", "First."))
    write_skill(root, "b", skill_text("same", "Second."))
    skills = SkillSet(root)
    assert [s.description for s in skills.load()] == ["First."]
    assert skills.problems == ["skills/b/SKILL.md: the name 'same' is taken by skills/a/SKILL.md; this one is skipped"]


def test_a_missing_folder_is_a_problem_not_a_crash(tmp_path):
    skills = SkillSet(tmp_path / "nowhere")
    assert skills.load() == [] and "is not a directory" in skills.problems[0] and skills.index() == ""


def test_descriptions_are_cut_with_a_visible_mark():
    long = "x" * 100
    assert truncate("short") == "short"
    assert len(truncate(long)) == DESCRIPTION_CAP and truncate(long).endswith(TRUNCATION_MARK)
    assert truncate("a" * DESCRIPTION_CAP) == "a" * DESCRIPTION_CAP  # exactly at the cap: not cut
    skill = parse_skill(skill_text("n", long), "skills/n/SKILL.md", Path("x"))
    assert index_entry(skill) == f"- n: {truncate(long)} (skills/n/SKILL.md)"
    assert index_entry(skill, cap=10) == "- n: xxxxxxx... (skills/n/SKILL.md)"


def test_the_index_has_one_line_per_skill_sorted_by_name():
    skills = SkillSet(OURS, label="skills")
    index = skills.index()
    lines = [line for line in index.splitlines() if line.startswith("- ")]
    assert index.startswith(SKILLS_HEADER + "\n\n") and "read_skill" in index
    assert [line.split(":")[0][2:] for line in lines] == ["add-unit", "changelog-entry", "commit-message",
                                                         "run-checks", "write-check"]
    assert all(line.endswith(f"(skills/{line.split(':')[0][2:]}/SKILL.md)") for line in lines)
    assert skills.problems == []


def test_inline_puts_every_whole_file_in_the_block():
    skills = SkillSet(OURS, label="skills")
    block = inline(skills)
    for skill in skills.load():
        assert skill.text.strip() in block


def test_read_skill_gives_the_body_and_a_clear_message_for_an_unknown_name(tmp_path):
    root = tmp_path / "skills"
    write_skill(root, "a", skill_text("a", "Say a.", "# A\n\nthe body\n"))
    toolbox = Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "M.md"), SkillSet(root))
    assert toolbox.definitions[-1]["function"]["name"] == "read_skill"
    assert toolbox.call("read_skill", {"name": "a"}) == "# A\n\nthe body\n"
    assert toolbox.call("read_skill", {"name": "nope"}) == "error: no skill named 'nope'; the skills are: a"
    assert toolbox.call("read_skill", {}) == "error: bad arguments for read_skill: missing required argument 'name'"


def test_without_skills_the_tools_are_unchanged(tmp_path):
    toolbox = Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "M.md"))
    assert "read_skill" not in toolbox.handlers and toolbox.definitions[-1]["function"]["name"] == "remember"


def test_a_skill_that_leads_outside_the_folder_is_not_loaded(tmp_path):
    root = tmp_path / "skills"
    outside = write_skill(tmp_path / "elsewhere", "secret", skill_text("secret", "Not ours."))
    (root / "secret").mkdir(parents=True)
    os.symlink(outside, root / "secret" / "SKILL.md")
    skills = SkillSet(root)
    assert skills.load() == [] and "leads outside the skills folder" in skills.problems[0]
    with pytest.raises(Exception, match="no skill named 'secret'"):
        skills.read_skill("secret")


@pytest.mark.parametrize("at, order", [("stable", ["base", "skills", "agents_md", "memory_header", "memory_body"]),
                                       ("volatile", ["base", "agents_md", "skills", "memory_header", "memory_body"])])
def test_the_index_sits_after_the_base_prompt_or_after_agents_md(at, order):
    prompt = SystemPrompt("base", "rules", "notes", skills="# Skills\n\n- a: b (c)", skills_at=at)
    assert [name for name, _ in prompt.blocks()] == order
    assert prompt.text == "".join(text for _, text in prompt.blocks())


def test_no_skills_leaves_the_prompt_as_it_was():
    assert SystemPrompt("base", "rules", "notes", skills="").text == SystemPrompt("base", "rules", "notes").text


class Scripted:
    """A fake model: answers from a list, keeps the system prompt of every request."""

    def __init__(self, replies):
        self.replies, self.systems = list(replies), []

    def complete(self, messages, tools=None, **params):
        self.systems.append(messages[0]["content"])
        return ModelReply(self.replies.pop(0), {"messages": messages}, {"usage": {}})


def call(tool, **args):
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": tool, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}]}


@pytest.mark.parametrize("at", ["stable", "volatile"])
def test_a_skill_written_mid_session_is_in_the_next_request(tmp_path, at):
    repo = tmp_path / "repo"
    write_skill(repo / "skills", "a", skill_text("a", "Say a."))
    (repo / "AGENTS.md").write_text("rules")
    memory = MemoryStore(tmp_path / "MEMORY.md")
    skills = SkillSet(repo / "skills")
    injection = for_mode("frozen", "base", "rules", memory, repo, skills=skills.index, skills_at=at)
    model = Scripted([call("write_file", path="skills/b/SKILL.md", content=skill_text("b", "Say b.")),
                      call("read_skill", name="b"), {"role": "assistant", "content": "done"}])
    session = Session.open(tmp_path / "s.jsonl")
    run_task("go", model=model, toolbox=Toolbox(Workspace(repo), memory, skills), session=session,
             steps=[injection])
    first, second, third = model.systems
    assert "- b: Say b." not in first and "- b: Say b." in second and second == third
    assert [e["type"] for e in session.entries].count("system_refresh") == 1
    changed = next(i for i, (x, y) in enumerate(zip(first, second)) if x != y)
    assert (first.index("# Repository instructions") < changed) == (at == "volatile")
    assert session.messages()[-2]["content"] == "Do the thing.\n"  # read_skill found the new skill


def test_cli_takes_a_skills_folder_and_reports_a_bad_file(tmp_path, capsys):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "AGENTS.md").write_text("rules")
    write_skill(repo / "skills", "good", skill_text("good", "Works."))
    write_skill(repo / "skills", "bad", "no front matter\n")
    replies = [(200, completion(call("read_skill", name="good"))),
               (200, completion({"role": "assistant", "content": "all done"}))]
    with FakeChatServer(replies) as srv:
        code = main(["fix", "-w", str(repo), "--server", srv.url, "--skills", str(repo / "skills"),
                     "--skills-index", "volatile", "--memory", str(tmp_path / "m" / "MEMORY.md"),
                     "--session", str(tmp_path / "s.jsonl")])
    out, err = capsys.readouterr()
    assert code == 0 and "1 loaded, index volatile" in out and "all done" in out
    assert "miniagent: skills: " in err and "bad/SKILL.md: does not start with a '---'" in err
    first, second = (json.loads(body) for body in srv.received)
    system = first["messages"][0]["content"]
    assert system.index("# Repository instructions") < system.index("- good: Works.")
    assert first["tools"][-1]["function"]["name"] == "read_skill"
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "read_skill", "content": "Do the thing.\n"}


def test_cli_refuses_a_skills_folder_that_is_not_there(tmp_path, capsys):
    code = main(["fix", "-w", str(tmp_path), "--server", "http://127.0.0.1:9/v1", "--skills", str(tmp_path / "no"),
                 "--memory", str(tmp_path / "M.md"), "--session", str(tmp_path / "s.jsonl")])
    assert code == 1 and "the skills folder" in capsys.readouterr().err


def test_cli_default_is_the_stable_position(tmp_path):
    from miniagent.cli import parse_args
    args = parse_args(["t"])
    assert args.skills is None and args.skills_index == "stable"


@pytest.mark.parametrize("mode", ["refresh", "frozen", "append", "after-tools", "select", "retrieve"])
def test_every_memory_mode_carries_the_skills_index(tmp_path, mode):
    write_skill(tmp_path / "skills", "changelog", skill_text("changelog", "How to write a changelog entry."))
    skills = SkillSet(tmp_path / "skills")
    memory = MemoryStore(tmp_path / "MEMORY.md")
    injection = for_mode(mode, "base", "rules", memory, tmp_path, skills=skills.index)
    injection.user_message("write a changelog entry", [])
    assert "changelog" in injection()


def test_a_skill_file_starting_with_a_utf8_bom_loads(tmp_path):
    root = tmp_path / "skills"
    path = write_skill(root, "bom", "")
    path.write_bytes(b"\xef\xbb\xbf" + skill_text("bom", "Saved by Notepad.").encode("utf-8"))
    skills = SkillSet(root)
    assert [s.name for s in skills.load()] == ["bom"] and skills.problems == []
    assert skills.load()[0].text.startswith("---\n")  # the mark is not part of the text
