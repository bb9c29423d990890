"""A chapter's evolution map: one data file per chapter, one component, shown by every lesson.

    from prefixlab.presenting.evolution import evolution_map, lessons_view, next_lesson
    evolution_map("c1-2")          # chapter c1's map, "你在这里" on lesson c1-2's stages; glues every number
    evolution_map("c1-2", collapsed=True)  # the same, folded (a lesson's end: the reader has seen it before)
    evolution_map(chapter="c1")    # the same map without "你在这里" and without numbers (the chapter page)
    lessons_view("c1")             # the chapter's lessons in order (the chapter page)
    next_lesson("c1-2")            # the lesson after c1-2: Lesson(label, title, page)

A lesson id starts with its chapter's id (``<chapter>-<lesson>``), so a lesson finds its chapter's
map: ``data/<chapter>/evolution.yml`` (its header documents the fields and the query language).
Every number on the map is computed here, from a recording under ``data/recordings/``, by the
query its evidence entry states; nothing on the map is typed. ``evolution_map`` also glues each
number under its evidence name (MyST-NB ``glue``), so a lesson's prose can cite the same value.

A map never gives away an answer: a stage shows its numbers only if its lesson comes no later than
the current one ("你在这里"); a later lesson's stage shows ``?`` in their place and says where they are
measured, and the chapter page (no current lesson) shows none. Exercises ask for those numbers.

The view has ``text/html`` (the book, JupyterLab) and ``text/plain`` (what nbval compares: every
stage, every number). Links go to the lessons' pages as the book builds them (``<page>.html``).
"""
from __future__ import annotations

import html
import json
import posixpath
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

import yaml

from prefixlab.cache import calculator, composition
from prefixlab.cache.counterfactual import remembered_notes
from prefixlab.paths import DATA, RECORDINGS
from prefixlab.recording.format import Call, Recording, load

from . import bill
from .book.glue import glue_text, shown

HERE = "你在这里"
HIDDEN = "?"  # in place of a number the reader has not measured yet
AT_CHOICES = ("first", "last", "all", "compaction", "compactions", "after_compaction", "system_change")
# A results query (chapter A9): a number over an evaluation's result rows
# (data/recordings/<results>/results.jsonl, prefixlab.eval.rows), of one design (or all).
RESULT_MEASURES = ("runs", "passed", "tasks", "seeds", "pass_pct", "ci_low_pct", "ci_high_pct", "prompt_tokens")
MEASURES = ("prompt_tokens", "cached_tokens", "recomputed", "part_tokens", "rule_tokens", "messages_from",
            "note_in_system", "requests", "with_rule", "full_reuse", "follow_ups", "truncated_entries", "reply_with_rule",
            "peak_prompt_tokens", "total_prompt_tokens", "total_recomputed",
            "sum_prompt_tokens", "sum_cached_tokens", "ledger_prompt_tokens", "context_prompt_tokens")


class MapError(ValueError):
    """The map's data file is wrong, or a query cannot be answered; the message says which."""


@dataclass(frozen=True)
class Lesson:
    id: str
    label: str
    title: str
    page: str | None  # book-root relative, no extension; None while the lesson is not written

    def href(self, from_page: str | None = None) -> str | None:
        """The built page's URL relative to ``from_page`` (a page path like ``book/x``)."""
        if self.page is None:
            return None
        start = posixpath.dirname(from_page) if from_page else "book"
        return posixpath.relpath(f"{self.page}.html", start or ".")


@dataclass(frozen=True)
class Evidence:
    name: str
    label: str
    query: dict


@dataclass(frozen=True)
class Stage:
    id: str
    title: str
    lesson: str
    solved: str
    stuck: str
    evidence: tuple[Evidence, ...] = ()
    naive: bool = False
    branch: bool = False
    after: str | None = None


@dataclass(frozen=True)
class EvolutionMap:
    chapter: dict
    lessons: tuple[Lesson, ...]
    stages: tuple[Stage, ...]

    def lesson(self, lesson_id: str) -> Lesson:
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        raise MapError(f"no lesson {lesson_id!r}; lessons: {', '.join(l.id for l in self.lessons)}")


def map_path(chapter: str) -> Path:
    """Where chapter ``chapter`` keeps its map."""
    return DATA / chapter / "evolution.yml"


def chapter_of(lesson_id: str) -> str:
    """The chapter a lesson belongs to: its id up to the first "-"."""
    return lesson_id.split("-", 1)[0]


def _path(path: Path | None, chapter: str | None, lesson_id: str | None) -> Path:
    """The map to read: ``path`` if given, else the map of ``chapter`` or of ``lesson_id``'s chapter."""
    if path is not None:
        return Path(path)
    chapter = chapter or (chapter_of(lesson_id) if lesson_id else None)
    if not chapter:
        raise MapError("name the chapter (chapter=...) or a lesson of it, or give the map's path")
    found = map_path(chapter)
    if not found.is_file():
        raise MapError(f"chapter {chapter!r} has no evolution map ({found} is missing)")
    return found


def load_map(path: Path) -> EvolutionMap:
    """Read and check the data file: known lessons, unique glue names, placeholders that exist."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    lessons = tuple(Lesson(l["id"], l["label"], l["title"], l.get("page")) for l in data["lessons"])
    ids = {l.id for l in lessons}
    stages, names = [], set()
    for s in data["stages"]:
        if s["lesson"] not in ids:
            raise MapError(f"{path}: stage {s['id']!r} names an unknown lesson {s['lesson']!r}")
        evidence = tuple(Evidence(e["name"], e["label"], e["query"]) for e in s.get("evidence") or [])
        for e in evidence:
            if e.name in names:
                raise MapError(f"{path}: evidence name {e.name!r} is used twice")
            names.add(e.name)
            check_query(e.query, f"{path}: {e.name}")
        mine = {e.name for e in evidence}
        for text in (s["solved"], s["stuck"]):
            unknown = set(re.findall(r"\{(\w+)\}", text)) - mine
            if unknown:
                raise MapError(f"{path}: stage {s['id']!r} cites {sorted(unknown)}, which is not its evidence")
        stages.append(Stage(s["id"], s["title"], s["lesson"], s["solved"], s["stuck"], evidence,
                            bool(s.get("naive")), bool(s.get("branch")), s.get("after")))
    stage_ids = {s.id for s in stages}
    for s in stages:
        if s.branch and s.after not in stage_ids:
            raise MapError(f"{path}: branch {s.id!r} comes after an unknown stage {s.after!r}")
    return EvolutionMap(data["chapter"], lessons, tuple(stages))


# -- queries over a recording -----------------------------------------------------------------------

def check_query(query: dict, where: str) -> None:
    if "results" in query:  # a number over an evaluation's result rows
        if not isinstance(query.get("results"), str) or query.get("measure") not in RESULT_MEASURES:
            raise MapError(f"{where}: a results query needs 'results' (a folder under data/recordings/) and a "
                           f"'measure' of {', '.join(RESULT_MEASURES)}")
        if set(query) - {"results", "design", "measure"}:
            raise MapError(f"{where}: a results query has only 'results', 'design' and 'measure', not "
                           f"{sorted(set(query) - {'results', 'design', 'measure'})}")
        return
    if "data" in query:  # a number measured outside a recording: a key of a JSON file under data/
        for key in ("data", "key"):
            if not isinstance(query.get(key), str) or not query[key]:
                raise MapError(f"{where}: a data query needs 'data' (a JSON file under data/) and 'key' (a.b.c)")
        if set(query) - {"data", "key"}:
            raise MapError(f"{where}: a data query has only 'data' and 'key', not {sorted(set(query) - {'data', 'key'})}")
        return
    for key in ("recording", "session", "at", "measure"):
        if key not in query:
            raise MapError(f"{where}: the query has no {key!r}")
    at = str(query["at"])
    if at not in AT_CHOICES and not re.fullmatch(r"(round|turn|compaction) \d+", at):
        raise MapError(f"{where}: unknown 'at' {at!r}; choose one of {', '.join(AT_CHOICES)}, 'round N', 'turn N' "
                       "or 'compaction N'")
    if query["measure"].split()[0] not in MEASURES:
        raise MapError(f"{where}: unknown measure {query['measure']!r}; choose one of {', '.join(MEASURES)}")


@lru_cache(maxsize=8)
def _recording(name: str) -> Recording:
    return load(RECORDINGS / name)


def select(recording: Recording, sessions: list[str], at: str) -> list[Call]:
    """The calls of ``sessions`` (in recorded order) that ``at`` picks."""
    calls = [c for c in recording.calls if any(fnmatchcase(c.session, s) for s in sessions)]  # "free-*"
    if not calls:
        raise MapError(f"{recording.path.name}: no calls in session(s) {sessions}")
    if at == "all":
        return calls
    if at == "first":
        return calls[:1]
    if at == "last":
        return calls[-1:]
    if at.startswith("round "):
        picked = [c for c in calls if c.kind == "model_call" and c.round == int(at.split()[1])]
    elif at.startswith("turn "):  # the first call of the N-th user request: a call sends one user message per request
        picked = [c for c in calls if sum(1 for m in c.request["messages"] if m.get("role") == "user")
                  == int(at.split()[1])][:1]
    elif at.startswith("compaction "):  # the N-th summary call of every selected session
        n, seen, picked = int(at.split()[1]), {}, []
        for c in calls:
            if c.kind == "compaction":
                seen[c.session] = seen.get(c.session, 0) + 1
                if seen[c.session] == n:
                    picked.append(c)
    elif at == "compaction":
        picked = [c for c in calls if c.kind == "compaction"][:1]
    elif at == "compactions":  # every summary request
        picked = [c for c in calls if c.kind == "compaction"]
    elif at == "after_compaction":
        first = next((i for i, c in enumerate(calls) if c.kind == "compaction"), None)
        picked = [c for c in calls[first + 1:] if c.kind == "model_call"][:1] if first is not None else []
    else:  # system_change
        picked = [b for a, b in zip(calls, calls[1:])
                  if b.request["messages"][0] != a.request["messages"][0]][:1]
    if not picked:
        raise MapError(f"{recording.path.name}: {sessions} has no call at {at!r}")
    return picked


def _rule(recording: Recording) -> str:
    rule = recording.manifest.get("rule")
    if not rule:
        raise MapError(f"{recording.path.name}: the manifest names no rule (measure rule_tokens / with_rule)")
    return rule


def _reply_text(call: Call) -> str:
    """The text the server answered a call with ("" for none)."""
    choices = (call.response or {}).get("choices") or [{}]
    return choices[0].get("message", {}).get("content") or ""


def _rule_tokens(recording: Recording, call: Call) -> int:
    att = calculator.prepare(recording).attributions[call.seq]
    return sum(o.tokens for o in composition.find(att, _rule(recording), call.request["messages"]))


def _data_value(query: dict):
    """The value at ``key`` (dotted) in the JSON file ``data`` under data/."""
    path = DATA / query["data"]
    if not path.is_file():
        raise MapError(f"no data file {path}")
    value = json.loads(path.read_text(encoding="utf-8"))
    for part in query["key"].split("."):
        if not isinstance(value, dict) or part not in value:
            raise MapError(f"{query['data']}: no key {query['key']!r} (stopped at {part!r})")
        value = value[part]
    if isinstance(value, (dict, list)):
        raise MapError(f"{query['data']}: {query['key']!r} is not a number or a word")
    return value


def _results_value(query: dict):
    """A number over an evaluation's result rows: runs, passes, tasks, seeds, the pass rate and its 95 %
    Wilson interval in whole percent, or the runs' input tokens; of ``design`` when given."""
    from prefixlab.eval import rows, stats

    try:
        runs = rows.load(RECORDINGS / query["results"])
    except rows.ResultsError as err:
        raise MapError(str(err)) from None
    if query.get("design") is not None:
        runs = [r for r in runs if r.design == query["design"]]
        if not runs:
            raise MapError(f"{query['results']}: no runs of design {query['design']!r}")
    measure = query["measure"]
    if measure == "tasks":
        return len({r.task for r in runs})
    if measure == "seeds":
        return len({r.seed for r in runs})
    if measure == "prompt_tokens":
        return sum(r.prompt_tokens for r in runs)
    s = stats.summary(runs)
    return {"runs": s.runs, "passed": s.passed, "pass_pct": round(100 * s.rate),
            "ci_low_pct": round(100 * s.interval.low), "ci_high_pct": round(100 * s.interval.high)}[measure]


def evaluate(query: dict):
    """The value a query asks for (int, or bool for ``note_in_system``; a data query: what the file holds)."""
    check_query(query, "query")
    if "data" in query:
        return _data_value(query)
    if "results" in query:
        return _results_value(query)
    recording = _recording(query["recording"])
    sessions = query["session"] if isinstance(query["session"], list) else [query["session"]]
    calls = select(recording, sessions, str(query["at"]))
    measure, *arg = query["measure"].split()
    if measure == "requests":
        return len(calls)
    if measure == "follow_ups":
        return len(calls) - 1
    if measure == "with_rule":
        return sum(1 for c in calls if _rule_tokens(recording, c) > 0)
    if measure == "reply_with_rule":  # summaries (or replies) that hold the manifest's rule word for word
        return sum(1 for c in calls if _rule(recording) in _reply_text(c))
    if measure == "full_reuse":
        return sum(1 for a, b in zip(calls, calls[1:]) if b.cached_tokens == a.prompt_tokens)
    if measure == "peak_prompt_tokens":  # the longest request among the selected calls
        return max(c.prompt_tokens for c in calls)
    if measure == "total_prompt_tokens":
        return sum(c.prompt_tokens for c in calls)
    if measure == "total_recomputed":
        return sum(c.prompt_tokens - c.cached_tokens for c in calls)
    if measure == "sum_prompt_tokens":  # every input token of the selected calls the server answered
        return sum(c.prompt_tokens for c in calls if c.response is not None)
    if measure == "sum_cached_tokens":
        return sum(c.cached_tokens or 0 for c in calls)
    if measure in ("ledger_prompt_tokens", "context_prompt_tokens"):
        # one session: its whole file's ledger (every branch, every child), or what a tally of the
        # context at the session's leaf sees (prefixlab.presenting.bill.context_vs_ledger)
        if len(sessions) != 1:
            raise MapError(f"measure {measure!r} needs one session, got {sessions}")
        info = recording.session_info(sessions[0])
        parts = bill.context_vs_ledger(recording.path / info["file"], info["leaf"])
        if measure == "context_prompt_tokens":
            return parts["context"].prompt
        return sum(u.prompt for u in parts.values())
    if len(calls) != 1:
        raise MapError(f"measure {measure!r} needs one call; 'at: {query['at']}' selects {len(calls)}")
    call = calls[0]
    if measure == "prompt_tokens":
        return call.prompt_tokens
    if measure == "cached_tokens":
        return call.cached_tokens
    if measure == "recomputed":
        return call.prompt_tokens - call.cached_tokens
    if measure == "rule_tokens":
        return _rule_tokens(recording, call)
    if measure == "part_tokens":
        att = calculator.prepare(recording).attributions[call.seq]
        return composition.tokens_by_part(att, call.request["messages"])[arg[0]]
    if measure == "truncated_entries":  # a fork: what "rewind = truncate the file" would delete instead
        fork = recording.session_info(call.session).get("forked_from")
        if not fork:
            raise MapError(f"{recording.path.name}: {call.session} is not a fork (measure truncated_entries)")
        trunk = [e["id"] for e in recording.session_path(fork["session"])]
        return len(trunk) - trunk.index(fork["entry"]) - 1
    if measure == "messages_from":
        other = {json.dumps(m, sort_keys=True) for c in recording.session_calls(arg[0])
                 for m in c.request["messages"][1:]}
        return sum(1 for m in call.request["messages"][1:] if json.dumps(m, sort_keys=True) in other)
    # note_in_system
    notes = remembered_notes(recording, arg[0])
    return bool(notes) and notes[0] in call.request["messages"][0]["content"]


# -- the view ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StageView:
    stage: Stage
    lesson: Lesson
    here: bool
    values: dict = field(default_factory=dict)  # evidence name -> value
    revealed: bool = True  # False: a later lesson's stage, its numbers are shown as HIDDEN

    def text(self, template: str) -> str:
        return template.format(**{k: shown(v) if self.revealed else HIDDEN for k, v in self.values.items()})

    def later_note(self) -> str:
        """Where the hidden numbers are measured ("" when nothing is hidden)."""
        return "" if self.revealed or not self.values else f"({HIDDEN} 处的数字在 {self.lesson.label} 里测出来)"


@dataclass(frozen=True)
class MapView:
    title: str
    stages: tuple[StageView, ...]
    current: str | None
    from_page: str | None
    collapsed: bool = False  # HTML: folded under a summary line (the map repeated at a lesson's end)

    def _ordered(self) -> list[StageView]:
        """Main stages in order, each side branch right after the stage it leaves from."""
        out = []
        for view in (v for v in self.stages if not v.stage.branch):
            out.append(view)
            out += [b for b in self.stages if b.stage.branch and b.stage.after == view.stage.id]
        return out

    def __repr__(self) -> str:
        lines = [f"{self.title}" + (f"(★ = {HERE})" if self.current else "")]
        number = 0
        for view in self._ordered():
            s, lesson = view.stage, view.lesson
            status = "" if lesson.page else "(未上线)"
            star = " ★" if view.here else ""
            if s.branch:
                head = f"   ↘ 岔路:{s.title} · {lesson.label}{status}{star}"
                indent = "     "
            else:
                number += 1
                head = f"{number}. {s.title} · {lesson.label}{status}{star}"
                indent = "   "
            lines += [head, f"{indent}解决了:{view.text(s.solved)}", f"{indent}卡在:{view.text(s.stuck)}"]
            if view.later_note():
                lines.append(f"{indent}{view.later_note()}")
        return "\n".join(lines)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        e = html.escape
        items, number = [], 0
        for view in self._ordered():
            s, lesson = view.stage, view.lesson
            href = lesson.href(self.from_page)
            badge = (f'<a href="{e(href)}">{e(lesson.label)}</a>' if href else
                     f'{e(lesson.label)}<span style="color:#6b7280">(未上线)</span>')
            if not s.branch:
                number += 1
            mark = "↘ 岔路" if s.branch else f"{number}"
            here = (f'<span class="prefixlab-evolution__here" style="background:#f59e0b;color:#111827;'
                    f'border-radius:3px;padding:0 .4em;margin-left:.5em;font-size:.85em">{HERE}</span>'
                    if view.here else "")
            naive = ('<span style="color:#6b7280;font-size:.85em;margin-left:.5em">朴素做法</span>'
                     if s.naive else "")
            evidence = "".join(
                f'<li>{e(ev.label)}:<b>{e(shown(view.values[ev.name]))}</b> '
                f'<code style="font-size:.85em">{e(_describe(ev.query))}</code></li>' for ev in s.evidence)
            details = (f'<details style="margin-top:.3rem"><summary style="cursor:pointer;font-size:.9em">'
                       f'证据:{len(s.evidence)} 个录制数字</summary><ul style="margin:.3rem 0;font-size:.9em">'
                       f'{evidence}</ul></details>') if s.evidence and view.revealed else ""
            if view.later_note():
                details = f'<div style="color:#6b7280;font-size:.85em">{e(view.later_note())}</div>'
            border = "#f59e0b" if view.here else ("#9ca3af" if s.branch else "#2563eb")
            style = (f"border:1px solid var(--pst-color-border,#d0d7de);border-left:5px solid {border};"
                     "border-radius:6px;padding:.5rem .8rem;margin:.2rem 0;"
                     + ("margin-left:2.5rem;border-style:dashed;" if s.branch else "")
                     + ("background:rgba(245,158,11,.08);" if view.here else ""))
            items.append(
                f'<li class="prefixlab-evolution__stage" data-stage="{e(s.id)}" style="{style}">'
                f'<div><b>{e(mark)} · {e(s.title)}</b>{naive}{here}'
                f'<span style="float:right;font-size:.9em">{badge}</span></div>'
                f'<div style="margin-top:.25rem">✓ <b>解决了</b>:{e(view.text(s.solved))}</div>'
                f'<div>✗ <b>卡在</b>:{e(view.text(s.stuck))}</div>{details}</li>')
        arrow = '<li aria-hidden="true" style="text-align:center;color:#9ca3af;line-height:1;margin:0">↓</li>'
        ordered = self._ordered()
        with_arrows = []
        for i, (view, item) in enumerate(zip(ordered, items)):
            with_arrows.append(item)
            nxt = ordered[i + 1] if i + 1 < len(ordered) else None
            if nxt is not None and not nxt.stage.branch:
                with_arrows.append(arrow)  # main line: after a stage and the branches that leave it
        items = with_arrows
        stages = f'<ol style="list-style:none;padding:0;margin:0">{"".join(items)}</ol>'
        if self.collapsed:
            here = next((v.lesson.label for v in self.stages if v.here), "")
            summary = f"{self.title}" + (f"({HERE}:{here};点开看全图)" if here else "(点开看全图)")
            return (f'<details class="prefixlab-evolution" role="figure" aria-label="{e(self.title)}">'
                    f'<summary style="font-weight:600;cursor:pointer;margin-bottom:.3rem">{e(summary)}</summary>'
                    f'{stages}</details>')
        return (f'<div class="prefixlab-evolution" role="figure" aria-label="{e(self.title)}">'
                f'<div style="font-weight:600;margin-bottom:.3rem">{e(self.title)}</div>{stages}</div>')


def _describe(query: dict) -> str:
    if "data" in query:
        return f"data/{query['data']} · {query['key']}"
    if "results" in query:
        return f"{query['results']}/results.jsonl · {query.get('design') or '全部设计'} · {query['measure']}"
    sessions = query["session"] if isinstance(query["session"], list) else [query["session"]]
    return f"{query['recording']} · {'+'.join(sessions)} · {query['at']} · {query['measure']}"


def evolution_map(current: str | None = None, *, chapter: str | None = None, glue: bool = True,
                  path: Path | None = None, from_page: str | None = None, collapsed: bool = False) -> MapView:
    """The map with "你在这里" on the stages of lesson ``current`` (None: the chapter page).

    The map is ``current``'s chapter's, or ``chapter``'s, or the one at ``path``.
    Every evidence value is computed now; with ``glue`` it is also glued under its name (a glued
    value is not shown by itself). The view shows a stage's numbers only if its lesson comes no
    later than ``current`` in the chapter's order; the chapter page's map shows none.
    ``from_page`` (book-root relative) is where the links start; default: the current lesson's page.
    ``collapsed`` folds the HTML view under one summary line.
    """
    data = load_map(_path(path, chapter, current))
    order = [l.id for l in data.lessons]
    reached = -1  # the chapter page: no lesson reached yet
    if current is not None:
        data.lesson(current)  # an unknown lesson raises
        from_page = from_page or data.lesson(current).page
        reached = order.index(current)
    views = []
    for stage in data.stages:
        values = {ev.name: evaluate(ev.query) for ev in stage.evidence}
        if glue:
            for name, value in values.items():
                glue_text(name, value)
        views.append(StageView(stage, data.lesson(stage.lesson), stage.lesson == current, values,
                               revealed=order.index(stage.lesson) <= reached))
    title = f"{data.chapter['title']} · 演进地图"
    return MapView(title, tuple(views), current, from_page or data.chapter.get("page"), collapsed)


@dataclass(frozen=True)
class LessonsView:
    """The chapter's lessons in order, linked where the page exists."""

    lessons: tuple[Lesson, ...]
    stages: dict  # lesson id -> stage titles
    from_page: str | None

    def __repr__(self) -> str:
        return "\n".join(f"{l.label} {l.title}" + ("" if l.page else "(未上线)")
                         + (f":{'、'.join(self.stages.get(l.id, []))}" if self.stages.get(l.id) else "")
                         for l in self.lessons)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        e = html.escape
        rows = []
        for l in self.lessons:
            href = l.href(self.from_page)
            title = f'<a href="{e(href)}">{e(l.title)}</a>' if href else f'{e(l.title)}(未上线)'
            stages = "、".join(self.stages.get(l.id, []))
            rows.append(f"<tr><td>{e(l.label)}</td><td>{title}</td><td>{e(stages)}</td></tr>")
        return ('<table class="table prefixlab-table"><thead><tr><th>课</th><th>问题</th><th>地图上的阶段</th>'
                f'</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def lessons_view(chapter: str | None = None, path: Path | None = None, from_page: str | None = None) -> LessonsView:
    data = load_map(_path(path, chapter, None))
    stages: dict[str, list[str]] = {}
    for s in data.stages:
        stages.setdefault(s.lesson, []).append(s.title)
    return LessonsView(data.lessons, stages, from_page or data.chapter.get("page"))


def next_lesson(current: str, path: Path | None = None) -> Lesson | None:
    """The lesson after ``current`` in its chapter's order (None after the last one)."""
    data = load_map(_path(path, None, current))
    ids = [l.id for l in data.lessons]
    data.lesson(current)
    i = ids.index(current)
    return data.lessons[i + 1] if i + 1 < len(ids) else None
