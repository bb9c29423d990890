"""Record A4·1's experiment: one prompt, sent again with one token changed at position p.

    python -m prefixlab record a4-1 data/recordings/a4-1-one-token-smollm2-llamacpp

The prompt is what miniagent sends on the first round of a task (design ``frozen``, empty memory)
on a fresh copy of the toy repository with a longer AGENTS.md (``data/a4/a4-1/repo-overlay``): the
system prompt (base prompt + AGENTS.md + the empty memory block), miniagent's six tool definitions
and the task of ``data/a4/a4-1/sweep.yml``. About 2,000 tokens. Scripted policy: every request goes
to the real server (one generated token), the assistant turn is the script's ``answer``.

"Changing the token at position p" changes one word of the text -- its first letter, case kept --
in the system prompt, in a tool's description or in the task; ``p`` is where the rendered prompt's
token ids first differ from the unchanged prompt's (checked offline with the server's tokenizer
and chat template before anything is sent; ``prefixlab.cache.tokenizer``). Every word gives some
``p``; the sweep takes the ``positions`` words whose ``p`` come closest to evenly spread targets
from the first changeable token (right after the template's ``<|im_start|>system`` header) to the
last (in the task). The manifest's ``sweep`` lists them.

One slot (``-np 1``, the course server's flags), one epoch, every request its own one-request
session, in this order; what the slot holds before each request:

1. ``base-1``: the unchanged prompt on an empty slot (nothing to read: 0 cached).
2. ``base-2``: the same prompt again; the slot holds it (its one generated token is never kept),
   so all of it matches, and the server recomputes the last token anyway (the n-1 cap).
3. for every p, in increasing order:
   ``probe-pNNNN``: the prompt changed at p; the slot holds the unchanged prompt, so the common
   prefix is p tokens: p read, the rest recomputed;
   ``restore-pNNNN``: the unchanged prompt again, so the next probe again finds it in the slot. The
   slot now holds the changed prompt (common prefix p), but with the host cache (``--cache-ram``)
   the server may load the unchanged prompt it saved there instead (when the probe broke early:
   similarity below 0.10 or less than half of the slot kept); then the restore reads n-1.
   The calculator models both (``prefixlab.cache.rules.llamacpp``); the lesson's measurement is the probes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from miniagent.loop import run_task
from miniagent.modes import for_mode
from miniagent.prompt import BASE_PROMPT, read_agents_md
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox

from chapters.a4.paths import A41_DIR, A41_OVERLAY
from prefixlab.cache.tokenizer import load_template, load_tokenizer, prompt_token_ids
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER, TOY_REPO
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.recorder import Recorder
from prefixlab.recording.repository import Repository

EXPERIMENT = "A4-1"
GROUP = "frozen"   # the system prompt never changes within a session
WORD = re.compile(r"[A-Za-z]{3,}")


@dataclass(frozen=True)
class Prompt:
    """One request's changeable parts: the system text, the tool definitions and the task."""

    system: str
    tools: list[dict]
    task: str

    def messages(self) -> list[dict]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.task}]


@dataclass(frozen=True)
class Change:
    """One word's first letter changed: in ``part`` ("system", "tools" or "task") at ``offset`` of
    its text (for tools, of the ``key`` description of tool ``tool``); ``p`` is the first token
    whose id differs."""

    part: str
    offset: int
    word: str
    p: int
    tool: int | None = None
    key: tuple[str, ...] = ()

    @property
    def replacement(self) -> str:
        return changed_word(self.word)

    def info(self) -> dict:
        where = {"part": self.part, "offset": self.offset, "word": self.word, "as": self.replacement}
        if self.part == "tools":
            where |= {"tool": self.tool, "key": list(self.key)}
        return {"position": self.p, **where}


def changed_word(word: str) -> str:
    """The word with its first letter swapped for another (same case): one word, same length."""
    first = "q" if word[0].lower() != "q" else "z"
    return (first.upper() if word[0].isupper() else first) + word[1:]


def replace_at(text: str, offset: int, word: str) -> str:
    assert text[offset:offset + len(word)] == word, (text[offset:offset + 20], word)
    return text[:offset] + changed_word(word) + text[offset + len(word):]


def descriptions(node, key=()):
    """Every ``description`` string in a tool definition, with the key path that reaches it."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "description" and isinstance(v, str):
                yield key + (k,), v
            else:
                yield from descriptions(v, key + (k,))


def get_path(node, key):
    for k in key:
        node = node[k]
    return node


def apply(prompt: Prompt, change: Change) -> Prompt:
    """``prompt`` with ``change`` made (a new Prompt; the tool definitions are copied, not edited)."""
    if change.part == "system":
        return Prompt(replace_at(prompt.system, change.offset, change.word), prompt.tools, prompt.task)
    if change.part == "task":
        return Prompt(prompt.system, prompt.tools, replace_at(prompt.task, change.offset, change.word))
    import copy

    tools = copy.deepcopy(prompt.tools)
    parent = get_path(tools[change.tool], change.key[:-1])
    parent[change.key[-1]] = replace_at(parent[change.key[-1]], change.offset, change.word)
    return Prompt(prompt.system, tools, prompt.task)


class PromptTokens:
    """Token ids of a prompt as llama-server renders and tokenizes it (template + tokenizer of the course)."""

    def __init__(self, template: Path = CHAT_TEMPLATE, tokenizer: Path = TOKENIZER):
        self.template, self.tokenizer = load_template(template), load_tokenizer(tokenizer)

    def __call__(self, prompt: Prompt) -> list[int]:
        return prompt_token_ids(self.template, self.tokenizer, prompt.messages(), prompt.tools)


def first_difference(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def measured(prompt: Prompt, change: Change, ids, base: list[int] | None = None) -> Change:
    """``change`` with its ``p``: where the changed prompt's token ids first differ (offline)."""
    base = ids(prompt) if base is None else base
    p = first_difference(base, ids(apply(prompt, change)))
    return Change(change.part, change.offset, change.word, p, change.tool, change.key)


def every_change(prompt: Prompt, ids=None) -> list[Change]:
    """Every word of the prompt's changeable text, changed, with the p it gives (offline)."""
    ids = ids or PromptTokens()
    base = ids(prompt)
    changes = []

    def measure(part, offset, word, tool=None, key=()):
        changes.append(measured(prompt, Change(part, offset, word, 0, tool, key), ids, base))

    for m in WORD.finditer(prompt.system):
        measure("system", m.start(), m.group())
    for i, tool in enumerate(prompt.tools):
        for key, text in descriptions(tool):
            for m in WORD.finditer(text):
                measure("tools", m.start(), m.group(), i, key)
    for m in WORD.finditer(prompt.task):
        measure("task", m.start(), m.group())
    return changes


def spread(changes: list[Change], n: int) -> list[Change]:
    """``n`` changes with distinct p, closest to n targets evenly spread from the smallest p to the largest."""
    by_p = {}
    for change in changes:
        by_p.setdefault(change.p, change)  # the first word that gives this p
    ps = sorted(by_p)
    lo, hi = ps[0], ps[-1]
    chosen: list[int] = []
    for k in range(n):
        target = lo + (hi - lo) * k / (n - 1)
        best = min((p for p in ps if p not in chosen), key=lambda p: (abs(p - target), p))
        chosen.append(best)
    return [by_p[p] for p in sorted(chosen)]


class SentTools:
    """The tool definitions a request carries; the script never calls a tool."""

    def __init__(self, definitions: list[dict]):
        self.definitions = definitions

    def call(self, name: str, arguments: str) -> str:
        raise RuntimeError(f"A4-1's script calls no tool, got {name}")


class OneTokenRecorder(Recorder):
    """A4-1: the unchanged prompt twice, then for each p the prompt changed at p and the unchanged one again."""

    experiment = EXPERIMENT
    script_file = A41_DIR / "sweep.yml"
    repository = Repository(TOY_REPO, (A41_OVERLAY,))

    def base_prompt(self) -> Prompt:
        """What miniagent's first request of the task carries, on a fresh copy of the repository."""
        workspace, memory = self.fresh_copy("base")
        injection = for_mode(GROUP, BASE_PROMPT, read_agents_md(workspace.root), memory, workspace.root)
        return Prompt(injection(), Toolbox(workspace, memory).definitions, self.script["task"].strip())

    def send_probe(self, base: Prompt, change: Change, ids) -> None:
        """The prompt changed at ``change.p`` (checked again before it is sent), then the unchanged one."""
        changed = apply(base, change)
        if first_difference(ids(base), ids(changed)) != change.p:
            raise RuntimeError(f"the change of {change.word!r} does not start at token {change.p}")
        self.send(f"probe-p{change.p:04d}", changed, {"probe": {"role": "changed", **change.info()}})
        self.send(f"restore-p{change.p:04d}", base, {"probe": {"role": "restore", "after": change.p}})

    def send(self, sid: str, prompt: Prompt, info: dict) -> None:
        session = Session.open(self.out / f"{sid}.jsonl")
        policy = ScriptedPolicy(self.model(), [{"answer": self.script["answer"]}], f"call_{sid}", self.clock)
        run_task(prompt.task, model=policy, toolbox=SentTools(prompt.tools), session=session,
                 steps=[FixedPrompt(prompt.system)], max_rounds=1)
        self._register({"id": sid, "file": f"{sid}.jsonl", "group": GROUP, "day": 1, "kind": "main", **info},
                       session, 0, policy.sent_at)

    def record(self, **options) -> dict:
        self.log(f"recording {EXPERIMENT} into {self.out}")
        base = self.base_prompt()
        ids = PromptTokens()
        n = len(ids(base))
        sweep = spread(every_change(base, ids), self.script["positions"])
        self.log(f"prompt of {n} tokens; positions p = {[c.p for c in sweep]}")
        self.manifest["sweep"] = {"prompt_tokens": n, "changes": [c.info() for c in sweep]}
        self.send("base-1", base, {"probe": {"role": "cold"}})
        self.send("base-2", base, {"probe": {"role": "resend"}})
        for change in sweep:
            self.send_probe(base, change, ids)
        return self.finish()


RECORDER = OneTokenRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


