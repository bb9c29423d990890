"""Skills: instructions for one kind of task, each in a SKILL.md, read only when needed.

A skills folder holds one directory per skill, each with a ``SKILL.md`` in the agentskills.io
format: YAML front matter with ``name`` and ``description``, then the body::

    skills/
      changelog-entry/SKILL.md      ---
      run-checks/SKILL.md           name: changelog-entry
                                    description: How to write ...
                                    ---
                                    (the body: the instructions themselves)

Putting every body into the system prompt costs tokens on every request, whether the task
needs a skill or not. So the system prompt gets an **index** instead: one line per skill (its
name, its description cut to ``DESCRIPTION_CAP`` characters, where the file is), and the model
reads a body on demand with the ``read_skill`` tool ("progressive disclosure").

The folder is read again every time the index is built, so a skill written during a session
is in the index of the very next request. Where the index sits in the system prompt is a
setting (``SKILLS_AT``, see prompt.py): right after the base prompt (``stable``) or after
AGENTS.md, just before the memory (``volatile``). A change to the index breaks the cached
prefix there, so the position decides how much of the prompt the server must recompute.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from .tools import ToolError, tool

SKILL_FILE = "SKILL.md"
DESCRIPTION_CAP = 60  # characters of a description shown in the index (Hermes's index uses 60 too)
TRUNCATION_MARK = "..."  # ends a description that was cut, so the model can tell
SKILLS_HEADER = "# Skills"
INDEX_INTRO = ("Each skill below is a SKILL.md with instructions for one kind of task. "
               "Before a task a skill covers, read its full text with the `read_skill` tool.")
SKILLS_AT = ("stable", "volatile")  # where the skills block sits in the system prompt


class SkillFileError(Exception):
    """A SKILL.md that cannot be used: the message names the file and what is wrong."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    location: str  # how the index names the file, e.g. "skills/run-checks/SKILL.md"
    path: Path     # the file on disk
    text: str      # the whole file: front matter and body

    @property
    def body(self) -> str:
        return split_front_matter(self.text, self.location)[1]


def split_front_matter(text: str, where: str = SKILL_FILE) -> tuple[dict, str]:
    """(front matter as a dict, body) of a SKILL.md; a SkillFileError if there is no valid front matter."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise SkillFileError(f"{where}: does not start with a '---' front matter line")
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise SkillFileError(f"{where}: the front matter has no closing '---' line")
    try:
        meta = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)  # where in the front matter; +2: the file's own line number
        at = f" at line {mark.line + 2}, column {mark.column + 1}" if mark else ""
        raise SkillFileError(f"{where}: the front matter is not valid YAML{at}: "
                             f"{getattr(err, 'problem', None) or err}") from err
    if not isinstance(meta, dict):
        raise SkillFileError(f"{where}: the front matter is not a mapping of keys to values")
    return meta, "".join(lines[end + 1:]).lstrip("\n")


def parse_skill(text: str, location: str, path: Path) -> Skill:
    """One skill from the text of its SKILL.md; ``name`` and ``description`` must be non-empty strings."""
    meta, _ = split_front_matter(text, location)
    for key in ("name", "description"):
        if not isinstance(meta.get(key), str) or not meta[key].strip():
            raise SkillFileError(f"{location}: the front matter needs a non-empty text '{key}'")
    return Skill(meta["name"].strip(), " ".join(meta["description"].split()), location, path, text)


def truncate(description: str, cap: int = DESCRIPTION_CAP) -> str:
    """At most ``cap`` characters; a cut description ends with ``TRUNCATION_MARK``."""
    if len(description) <= cap:
        return description
    return description[: cap - len(TRUNCATION_MARK)].rstrip() + TRUNCATION_MARK


def index_entry(skill: Skill, cap: int = DESCRIPTION_CAP) -> str:
    """The skill's line in the index."""
    return f"- {skill.name}: {truncate(skill.description, cap)} ({skill.location})"


class SkillSet:
    """The skills in one folder, read from disk each time they are asked for.

    ``label`` is how locations start in the index (default: the folder's name), so the
    prompt does not depend on where the folder happens to be on this machine.
    """

    def __init__(self, root: Path | str, label: str | None = None, cap: int = DESCRIPTION_CAP):
        self.root = Path(root).resolve()
        self.label = label if label is not None else self.root.name
        self.cap = cap
        self.problems: list[str] = []  # what the last load() could not use, one message each

    def load(self) -> list[Skill]:
        """Every usable skill, sorted by name. A bad file is skipped and its problem kept in ``problems``."""
        skills, self.problems = {}, []
        if not self.root.is_dir():
            self.problems.append(f"skills folder {self.root} is not a directory")
            return []
        for path in sorted(self.root.glob(f"*/{SKILL_FILE}")):
            location = f"{self.label}/{path.relative_to(self.root).as_posix()}"
            if self.root not in path.resolve().parents:  # a symlink must not lead out of the folder
                self.problems.append(f"{location}: leads outside the skills folder; skipped")
                continue
            try:
                # utf-8-sig: an editor's byte order mark is not part of the text (nor of the '---' line)
                skill = parse_skill(path.read_text(encoding="utf-8-sig"), location, path)
            except (SkillFileError, OSError, UnicodeDecodeError) as err:
                self.problems.append(str(err) if isinstance(err, SkillFileError) else f"{location}: {err}")
                continue
            if skill.name in skills:
                self.problems.append(f"{location}: the name {skill.name!r} is taken by "
                                     f"{skills[skill.name].location}; this one is skipped")
                continue
            skills[skill.name] = skill
        return sorted(skills.values(), key=lambda s: s.name)

    def index(self) -> str:
        """The index block for the system prompt ('' when there is no skill)."""
        skills = self.load()
        if not skills:
            return ""
        lines = "\n".join(index_entry(s, self.cap) for s in skills)
        return f"{SKILLS_HEADER}\n\n{INDEX_INTRO}\n\n{lines}"

    @tool("Read the full instructions of a skill listed under # Skills.", name="The skill's name, as in the index")
    def read_skill(self, name: str) -> str:
        skills = {s.name: s for s in self.load()}
        skill = skills.get(name.strip())
        if skill is None:
            known = ", ".join(skills) or "none"
            raise ToolError(f"no skill named {name!r}; the skills are: {known}")
        return skill.body
