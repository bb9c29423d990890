"""The recall test of side lesson A6·R: which needed notes does a request carry, at what cost?

    from chapters.a6.figures import recall
    notes, tasks = recall.load_recall_set()          # data/a6/t14/notes.yml, data/a6/recall/tasks.yml
    rows = recall.measure(ks=range(1, 11))           # one Row per strategy x k x task
    recall.summary(rows)                             # per strategy and k: mean recall, tokens

For each request of the small hand-labelled set (data/a6/recall/README.md says how it was made)
and each strategy, the notes the request would carry are worked out with miniagent's own code:

    frozen    every note (the whole memory file; k does not apply)
    select    the k best notes by BM25 for the request (miniagent.variants.select_memory.pick_notes)
    retrieve  the same k notes (the same retriever); only where they go differs

``recall`` is the share of the notes the request needs that it carries; ``complete`` says it
carries all of them. ``tokens`` is what the strategy adds to the request: the memory header and
the notes exactly as miniagent writes them, tokenized alone with the course's tokenizer (in a
real request a token may straddle the edge; the T14 recording's block attribution gives those
in-context counts). Nothing here runs a model: whether the model uses the notes well is not
measured.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from statistics import mean

import yaml

from miniagent.prompt import SystemPrompt
from miniagent.retriever import Retriever
from miniagent.variants.retrieve_memory import with_recalled
from miniagent.variants.select_memory import NO_MATCH

from prefixlab.cache.tokenizer import load_tokenizer
from chapters.a6.paths import RECALL_DIR
from prefixlab.paths import REPO_ROOT

STRATEGIES = ("frozen", "select", "retrieve")
RECALL_SET = RECALL_DIR / "tasks.yml"


class RecallSetError(ValueError):
    """The recall set or its notes file cannot be used; the message says where."""


@dataclass(frozen=True)
class Task:
    id: str
    text: str
    needs: tuple[str, ...]  # note ids


@dataclass(frozen=True)
class Row:
    strategy: str
    k: int | None            # None for frozen (it carries every note)
    task: str                # task id
    carried: tuple[str, ...]  # note ids the request carries, in the order they appear
    needs: tuple[str, ...]
    tokens: int              # tokens the strategy adds to the request

    @property
    def found(self) -> tuple[str, ...]:
        return tuple(n for n in self.needs if n in self.carried)

    @property
    def recall(self) -> float:
        return len(self.found) / len(self.needs)

    @property
    def complete(self) -> bool:
        return len(self.found) == len(self.needs)


@dataclass(frozen=True)
class Summary:
    strategy: str
    k: int | None
    recall: float      # mean over the tasks
    complete: float    # share of the tasks that carry every note they need
    tokens: float      # mean tokens added per request


def _yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise RecallSetError(f"cannot read {path}: {err.strerror or err}") from err
    except yaml.YAMLError as err:
        raise RecallSetError(f"{path}: not valid YAML ({err})") from err
    if not isinstance(data, dict):
        raise RecallSetError(f"{path}: expected a mapping at the top level")
    return data


def load_notes(path: Path) -> dict[str, str]:
    """id -> text of a notes file (data/a6/t14/notes.yml), in file order."""
    data = _yaml(path)
    notes: dict[str, str] = {}
    for i, note in enumerate(data.get("notes") or []):
        if not isinstance(note, dict) or not isinstance(note.get("id"), str) or not isinstance(note.get("text"), str):
            raise RecallSetError(f"{path}: notes[{i}] needs an id and a text (both strings)")
        if note["id"] in notes:
            raise RecallSetError(f"{path}: notes[{i}]: id {note['id']!r} is used twice")
        notes[note["id"]] = note["text"].strip()
    if not notes:
        raise RecallSetError(f"{path}: no notes")
    return notes


def load_recall_set(path: Path = RECALL_SET) -> tuple[dict[str, str], list[Task]]:
    """The notes (id -> text) and the tasks of a recall set; every id a task needs must exist."""
    path = Path(path)
    data = _yaml(path)
    if not isinstance(data.get("notes"), str):
        raise RecallSetError(f"{path}: field notes must name the notes file")
    notes = load_notes(REPO_ROOT / data["notes"])
    tasks, seen = [], set()
    for i, task in enumerate(data.get("tasks") or []):
        where = f"{path}: tasks[{i}]"
        if not isinstance(task, dict) or not isinstance(task.get("id"), str) or not isinstance(task.get("text"), str):
            raise RecallSetError(f"{where} needs an id and a text (both strings)")
        needs = task.get("needs")
        if not isinstance(needs, list) or not needs:
            raise RecallSetError(f"{where} ({task['id']}): needs must list at least one note id")
        if unknown := [n for n in needs if n not in notes]:
            raise RecallSetError(f"{where} ({task['id']}): unknown note ids {unknown}")
        if task["id"] in seen:
            raise RecallSetError(f"{where}: id {task['id']!r} is used twice")
        seen.add(task["id"])
        tasks.append(Task(task["id"], " ".join(task["text"].split()), tuple(needs)))
    if not tasks:
        raise RecallSetError(f"{path}: no tasks")
    return notes, tasks


def carried(strategy: str, notes: dict[str, str], query: str, k: int | None) -> tuple[list[str], str]:
    """(note ids, text) that ``strategy`` adds to a request for ``query``: the text as miniagent writes it."""
    ids = list(notes)
    if strategy == "frozen":
        chosen = ids
    elif strategy in ("select", "retrieve"):
        if k is None:
            raise ValueError(f"strategy {strategy!r} needs k")
        chosen = [ids[i] for i in Retriever(list(notes.values())).search(query, k)]
    else:
        raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    texts = [notes[i] for i in chosen]
    if strategy == "retrieve":
        return chosen, with_recalled("", texts)
    body = "\n§\n".join(texts) or (NO_MATCH if strategy == "select" else "")
    blocks = dict(SystemPrompt("", "", body).blocks())
    return chosen, blocks["memory_header"] + blocks["memory_body"]


def measure(ks=range(1, 11), path: Path = RECALL_SET, tokenizer=None) -> list[Row]:
    """One Row per strategy, k and task (frozen: one per task, k None)."""
    notes, tasks = load_recall_set(path)
    tokenizer = tokenizer or load_tokenizer()

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids) if text else 0

    rows = []
    for strategy in STRATEGIES:
        for k in ([None] if strategy == "frozen" else list(ks)):
            for task in tasks:
                ids, text = carried(strategy, notes, task.text, k)
                rows.append(Row(strategy, k, task.id, tuple(ids), task.needs, count(text)))
    return rows


def summary(rows: list[Row]) -> list[Summary]:
    """Per strategy and k, in the order the rows come: mean recall, share complete, mean tokens."""
    groups: dict[tuple[str, int | None], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.strategy, row.k), []).append(row)
    return [Summary(s, k, mean(r.recall for r in g), mean(r.complete for r in g), mean(r.tokens for r in g))
            for (s, k), g in groups.items()]
