"""Record T12, the experiment of lesson A6·3: dozens of skills -- all in the prompt, or an index?

    python -m prefixlab record a6-3 data/recordings/t12-smollm2-llamacpp
    python -m prefixlab.record_t12 data/recordings/t12-smollm2-llamacpp     # the old name, still works

One task that needs one skill (``data/a6/t12/tasks.yml``; the skill is ``needed_skill`` in
``data/a6/t12/script.yml``), with the scripted policy: every request goes to the real server, the
assistant turns come from the script, the tools run on a fresh copy of the toy repository with
``data/a6/t12/repo-overlay`` copied over it (a CHANGELOG and its check), whose ``skills/`` folder
the recorder fills. The skills are ours (``data/a6/skills/ours``) and, after
them, the Hermes skills stored in ``data/a6/skills/hermes`` (the smallest ones, smallest first).

Variants, each on a fresh server (a new epoch), each one session:

- ``inline-day1``: the naive design: every skill's whole text in the system prompt. All of them
  do not fit the served context window, so the folder gets the largest number that does: ours,
  then Hermes's smallest first, as many as keep every request of the session under ``n_ctx``
  (found by a dry run that counts each request's tokens offline, with the server's tokenizer and
  template). The model needs no ``read_skill``: the text is already there.
- ``index-day1``: the same skills, an index in the system prompt, the body read with ``read_skill``.
- ``added-stable-day1`` / ``added-volatile-day1``: as ``index-day1``, and the agent writes a new
  skill (``skills/<name>/SKILL.md``) mid-session; the index is rebuilt for the next request. The
  index sits right after the base prompt (``stable``) or right after AGENTS.md, at the front of
  the volatile band (``volatile``). Where the prefix breaks is the measured difference.

All sessions use memory mode ``frozen`` (group ``frozen``) with an empty memory.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from miniagent.loop import run_task
from miniagent.memory import MemoryStore
from miniagent.model import ModelReply
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.skills import SKILL_FILE, SkillSet, parse_skill
from miniagent.tools import Toolbox, Workspace
from miniagent.variants.inline_skills import inline

from chapters.a6.paths import SKILLS, T12_DIR, T12_OVERLAY
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER, TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "T12"
GROUP = "frozen"
VARIANTS = ("inline", "index", "added-stable", "added-volatile")
FOLDER = "skills"  # the skills folder inside the workspace copy, and how the index names it
OURS = SKILLS / "ours"
HERMES_MANIFEST = SKILLS / "hermes-manifest.json"
HERMES_TEXTS = SKILLS / "hermes"


def variant_turns(script: dict, variant: str) -> list[dict]:
    """The script's turns of this variant (a turn with ``variants`` belongs to those only)."""
    return [{k: v for k, v in turn.items() if k != "variants"} for turn in script["day1"]
            if variant in turn.get("variants", VARIANTS)]


def skill_pool() -> list[Path]:
    """Every SKILL.md a session may get, in the order they are added: ours (by name), then the
    stored Hermes skills smallest first (the order of the manifest's ``stored.paths``)."""
    ours = sorted(OURS.glob(f"*/{SKILL_FILE}"))
    stored = json.loads(HERMES_MANIFEST.read_text(encoding="utf-8"))["stored"]["paths"]
    return ours + [HERMES_TEXTS / path for path in stored]


def install_skills(repo: Path, files: list[Path]) -> list[str]:
    """Copy each SKILL.md to ``repo/skills/<its name>/SKILL.md``; return the names in that order."""
    names = []
    for file in files:
        text = file.read_text(encoding="utf-8")
        name = parse_skill(text, str(file), file).name
        target = repo / FOLDER / name / SKILL_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        names.append(name)
    return names


class TokenCounter:
    """Stands in for the server in a dry run: a request's prompt tokens, counted offline with the
    server's tokenizer and chat template (the same count the calculator checks recordings with)."""

    def __init__(self, template: Path = CHAT_TEMPLATE, tokenizer: Path = TOKENIZER):
        from prefixlab.cache.tokenizer import load_template, load_tokenizer

        self.template, self.tokenizer = load_template(template), load_tokenizer(tokenizer)
        self.counts: list[int] = []

    def complete(self, messages, tools=None, **params) -> ModelReply:
        from prefixlab.cache.tokenizer import prompt_token_ids

        self.counts.append(len(prompt_token_ids(self.template, self.tokenizer, messages, tools)))
        return ModelReply({"role": "assistant", "content": ""}, {"messages": messages, "tools": tools, **params},
                          {"usage": {"prompt_tokens": self.counts[-1]}})


class T12Recorder(Recorder):
    """T12: one task that needs one skill; every skill inline, an index, a skill added mid-session."""

    experiment = EXPERIMENT
    script_file = T12_DIR / "script.yml"
    tasks_file = T12_DIR / "tasks.yml"
    repository = Repository(TOY_REPO, (T12_OVERLAY,))
    variants = VARIANTS

    def __init__(self, out: Path, connect, restart, provenance: dict, model_name: str, log=print):
        super().__init__(out, connect, restart, provenance, model_name, log)
        self.n_ctx = provenance["server"]["props"]["n_ctx"]

    def fresh_copy(self, name: str, skills: list[Path]) -> tuple[Workspace, MemoryStore, list[str]]:
        shutil.rmtree(self.work / name, ignore_errors=True)  # a dry run may reuse a name
        workspace, memory = super().fresh_copy(name)
        names = install_skills(workspace.root, skills)
        return workspace, memory, names

    def run(self, variant: str, skills: list[Path], model, name: str | None = None):
        """One session of ``variant`` on a fresh workspace; returns (session, names, policy)."""
        workspace, memory, names = self.fresh_copy(name or variant, skills)
        skill_set = SkillSet(workspace.root / FOLDER, label=FOLDER)
        block = (lambda: inline(skill_set)) if variant == "inline" else skill_set.index
        at = "volatile" if variant == "added-volatile" else "stable"
        injection = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root,
                             skills=block, skills_at=at)
        sid = f"{variant}-day1"
        turns = variant_turns(self.script, variant)
        path = self.out / f"{sid}.jsonl" if name is None else self.work / f"{name}.jsonl"
        session = Session.open(path)
        policy = ScriptedPolicy(model, turns, f"call_{sid}", self.clock)
        toolbox = Toolbox(workspace, memory, None if variant == "inline" else skill_set)
        run_task(self.tasks["day1"].strip(), model=policy, toolbox=toolbox, session=session,
                 steps=[injection], max_rounds=len(turns))
        if skill_set.problems:
            raise RuntimeError(f"T12 skills that do not load: {skill_set.problems}")
        return session, names, policy

    def inline_subset(self) -> list[Path]:
        """The longest prefix of the pool whose inline session keeps every request under n_ctx.

        llama-server refuses a prompt of n_ctx tokens or more (server-context.cpp:3418); the
        request also needs room for its one generated token.
        """
        pool = skill_pool()
        counter = TokenCounter()
        for n in range(len(pool), 0, -1):
            counter.counts = []
            self.run("inline", pool[:n], counter, name=f"dry-run-{n}")
            if max(counter.counts) + 1 < self.n_ctx:
                self.dry_run = {"skills": n, "largest_request": max(counter.counts),
                                "one_more_skill": self._largest(pool[:n + 1]) if n < len(pool) else None}
                return pool[:n]
        raise RuntimeError(f"not even one skill fits a context window of {self.n_ctx} tokens")

    def _largest(self, skills: list[Path]) -> int:
        counter = TokenCounter()
        self.run("inline", skills, counter, name="dry-run-over")
        return max(counter.counts)

    def record(self, counterfactuals: bool = False, live: bool = False) -> dict:
        self.log(f"recording {EXPERIMENT} into {self.out}; served context window n_ctx = {self.n_ctx}")
        skills = self.inline_subset()
        self.log(f"inline: {len(skills)} skills fit (largest request {self.dry_run['largest_request']} tokens; "
                 f"one more skill: {self.dry_run['one_more_skill']})")
        needed = self.script["needed_skill"]
        for variant in self.on_fresh_servers():
            session, names, policy = self.run(variant, skills, self.model())
            assert needed in names, f"the needed skill {needed!r} is not in the set"
            info = {"id": f"{variant}-day1", "file": f"{variant}-day1.jsonl", "group": GROUP, "day": 1,
                    "kind": "main", "variant": variant,
                    "skills": {"block": "inline" if variant == "inline" else "index",
                               "at": "volatile" if variant == "added-volatile" else "stable",
                               "folder": FOLDER, "names": names, "needed": needed, "n_ctx": self.n_ctx}}
            if variant.startswith("added-"):
                info["skill_added"] = self.skill_added(variant)
            self._register(info, session, 0, policy.sent_at)
        self.manifest["skills"] = {"n_ctx": self.n_ctx, "pool": [str(p.relative_to(SKILLS)) for p in skill_pool()],
                                   "inline_subset": [str(p.relative_to(SKILLS)) for p in skills],
                                   "dry_run": self.dry_run}
        return self.finish()

    def skill_added(self, variant: str) -> dict:
        """Which skill the agent writes, during which round, and the first request whose index has it."""
        turns = variant_turns(self.script, variant)
        write = next(i for i, t in enumerate(turns, 1)
                     if t.get("tool") == "write_file" and t["args"]["path"].endswith(f"/{SKILL_FILE}"))
        args = turns[write - 1]["args"]
        name = parse_skill(args["content"], args["path"], Path(args["path"])).name
        return {"name": name, "path": args["path"], "by": "write_file", "during_round": write,
                "first_request_with_it": write + 1}


RECORDER = T12Recorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


