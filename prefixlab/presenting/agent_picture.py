"""从已有出发: one round of the agent loop, as the learner has built it so far.

    from prefixlab.presenting.agent_picture import agent_picture
    agent_picture(lesson_id)   # parts built by earlier lessons lit, this lesson's marked "你在这里"

Every lesson shows this picture at its start. The data is ``data/agent-picture.yml`` (its header
documents the fields): the parts of a round (what goes into the request and in which order, what
comes back, what is executed, what is written to disk), each with the lesson that adds it and the
question that lesson answers. Which lessons are written comes from ``_toc.yml``, matched by the
notebook's file stem, so links follow a notebook wherever the book keeps it.

The view has ``text/html`` (static: buttons and a small inline script that shows a part's question
on click or keyboard; a text list in ``<details>`` for readers without JavaScript) and
``text/plain`` (what nbval compares).
"""
from __future__ import annotations

import html
import posixpath
from dataclasses import dataclass
from pathlib import Path

import yaml

from prefixlab.paths import AGENT_PICTURE, TOC

from .book.course_map import toc_files

HERE = "你在这里"
TITLE = "从已有出发 · 一轮循环"
BUILT, CURRENT, LATER = "built", "here", "later"


class PictureError(ValueError):
    """The picture's data file is wrong, or a lesson is unknown; the message says which."""


@dataclass(frozen=True)
class Lesson:
    id: str
    label: str
    title: str
    stem: str | None  # the notebook's file name without folder and extension; None: not written yet
    focus: tuple[str, ...] = ()  # parts built earlier that this lesson works on again


@dataclass(frozen=True)
class Zone:
    id: str
    title: str
    note: str


@dataclass(frozen=True)
class Part:
    id: str
    zone: str
    label: str
    lesson: str
    answers: str


@dataclass(frozen=True)
class Picture:
    lessons: tuple[Lesson, ...]
    zones: tuple[Zone, ...]
    parts: tuple[Part, ...]

    def lesson(self, lesson_id: str) -> Lesson:
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        raise PictureError(f"no lesson {lesson_id!r}; lessons: {', '.join(l.id for l in self.lessons)}")

    def order(self, lesson_id: str) -> int:
        return [l.id for l in self.lessons].index(self.lesson(lesson_id).id)


def _fields(entry, keys: tuple[str, ...], where: str) -> None:
    if not isinstance(entry, dict):
        raise PictureError(f"{where}: expected a mapping, got {entry!r}")
    for key in keys:
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise PictureError(f"{where}: {key!r} is missing or empty")


def _unique(ids: list[str], what: str, path) -> None:
    seen = set()
    for i in ids:
        if i in seen:
            raise PictureError(f"{path}: {what} id {i!r} is used twice")
        seen.add(i)


def load_picture(path: Path = AGENT_PICTURE) -> Picture:
    """Read and check the data file: unique ids, known zones, lessons and parts."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) for k in ("lessons", "zones", "parts")):
        raise PictureError(f"{path}: needs the lists 'lessons', 'zones' and 'parts'")
    lessons, zones, parts = [], [], []
    for n, l in enumerate(data["lessons"], 1):
        _fields(l, ("id", "label", "title"), f"{path}: lesson #{n}")
        stem = l.get("stem")
        if stem is not None and (not isinstance(stem, str) or "/" in stem or stem.endswith(".ipynb")):
            raise PictureError(f"{path}: lesson {l['id']!r}: 'stem' is a file name without folder or extension")
        lessons.append(Lesson(l["id"], l["label"], l["title"], stem, tuple(l.get("focus") or ())))
    for n, z in enumerate(data["zones"], 1):
        _fields(z, ("id", "title", "note"), f"{path}: zone #{n}")
        zones.append(Zone(z["id"], z["title"], z["note"]))
    for n, p in enumerate(data["parts"], 1):
        _fields(p, ("id", "zone", "label", "lesson", "answers"), f"{path}: part #{n}")
        parts.append(Part(p["id"], p["zone"], p["label"], p["lesson"], p["answers"]))
    _unique([l.id for l in lessons], "lesson", path)
    _unique([z.id for z in zones], "zone", path)
    _unique([p.id for p in parts], "part", path)
    _unique([l.stem for l in lessons if l.stem], "lesson stem", path)
    lesson_ids, zone_ids, part_ids = {l.id for l in lessons}, {z.id for z in zones}, {p.id for p in parts}
    for p in parts:
        if p.zone not in zone_ids:
            raise PictureError(f"{path}: part {p.id!r} sits in an unknown zone {p.zone!r}")
        if p.lesson not in lesson_ids:
            raise PictureError(f"{path}: part {p.id!r} names an unknown lesson {p.lesson!r}")
    order = {l.id: i for i, l in enumerate(lessons)}
    added = {p.lesson for p in parts}
    for l in lessons:
        for f in l.focus:
            if f not in part_ids:
                raise PictureError(f"{path}: lesson {l.id!r} focuses on an unknown part {f!r}")
            built_by = next(p.lesson for p in parts if p.id == f)
            if order[built_by] >= order[l.id]:
                raise PictureError(f"{path}: lesson {l.id!r} focuses on {f!r}, which only {built_by!r} adds")
        if l.id not in added and not l.focus:
            raise PictureError(f"{path}: lesson {l.id!r} adds no part and has no focus: nothing to mark {HERE}")
    return Picture(tuple(lessons), tuple(zones), tuple(parts))


def toc_pages(toc: Path = TOC) -> dict[str, str]:
    """Notebook stem -> page path (book-root relative, no extension) of every page in ``_toc.yml``."""
    return {posixpath.basename(page): page for page in toc_files(toc)}


@dataclass(frozen=True)
class PartView:
    part: Part
    lesson: Lesson
    state: str  # BUILT, CURRENT or LATER
    href: str | None  # the lesson's page relative to the current page; None while not written


@dataclass(frozen=True)
class PictureView:
    lesson: Lesson
    zones: tuple[Zone, ...]
    parts: tuple[PartView, ...]

    def in_zone(self, zone: Zone) -> list[PartView]:
        return [v for v in self.parts if v.part.zone == zone.id]

    def state_of(self, part_id: str) -> str:
        return next(v.state for v in self.parts if v.part.id == part_id)

    def __repr__(self) -> str:
        lines = [f"{TITLE}({self.lesson.label})  ✓ 已学  ★ {HERE}  · 还没学到"]
        for zone in self.zones:
            lines.append(f"{zone.title}({zone.note})")
            for v in self.in_zone(zone):
                written = "" if v.href else "(未上线)"
                if v.state == LATER:
                    lines.append(f"  · {v.part.label} · {v.lesson.label}")
                else:
                    mark = "★" if v.state == CURRENT else "✓"
                    lines.append(f"  {mark} {v.part.label} · {v.lesson.label}{written}:{v.part.answers}")
        return "\n".join(lines)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))

    def _detail(self, v: PartView) -> str:
        e = html.escape
        if v.state == LATER:
            return f"<b>{e(v.part.label)}</b>:{e(v.lesson.label)}「{e(v.lesson.title)}」会讲到它,现在还没学到。"
        link = (f' <a href="{e(v.href)}">去读 {e(v.lesson.label)} →</a>' if v.href
                else f' <span class="pp-muted">({e(v.lesson.label)} 未上线)</span>')
        where = "这一课" if v.lesson.id == self.lesson.id else v.lesson.label
        return (f"<b>{e(v.part.label)}</b> · {e(where)}「{e(v.lesson.title)}」回答的问题:"
                f"{e(v.part.answers)}{link if v.lesson.id != self.lesson.id else ''}")

    def _repr_html_(self) -> str:
        e = html.escape
        uid = f"prefixlab-picture-{self.lesson.id}"
        columns, details, text = [], [], []
        for zone in self.zones:
            buttons = []
            text.append(f"<li><b>{e(zone.title)}</b>({e(zone.note)})<ul>")
            for v in self.in_zone(zone):
                badge = f'<span class="pp-badge">{HERE}</span>' if v.state == CURRENT else ""
                buttons.append(
                    f'<button type="button" class="pp-part pp-{v.state}" data-part="{e(v.part.id)}" '
                    f'aria-controls="{uid}-{e(v.part.id)}" aria-pressed="false">{e(v.part.label)}{badge}'
                    f'<small>{e(v.lesson.label)}</small></button>')
                details.append(f'<p id="{uid}-{e(v.part.id)}" data-part="{e(v.part.id)}" hidden>{self._detail(v)}</p>')
                mark = {BUILT: "✓", CURRENT: "★", LATER: "·"}[v.state]
                label = (f'<a href="{e(v.href)}">{e(v.lesson.label)}</a>' if v.href and v.state != LATER
                         else e(v.lesson.label) + ("" if v.href or v.state == LATER else "(未上线)"))
                answer = "" if v.state == LATER else f":{e(v.part.answers)}"
                text.append(f"<li>{mark} {e(v.part.label)} · {label}{answer}</li>")
            text.append("</ul></li>")
            columns.append(f'<div class="pp-zone"><div class="pp-zone-title">{e(zone.title)}</div>'
                           f'<div class="pp-note">{e(zone.note)}</div>{"".join(buttons)}</div>')
        arrow = '<div class="pp-arrow" aria-hidden="true">→</div>'
        return (
            f'<div class="prefixlab-picture" id="{uid}" role="group" aria-label="{e(TITLE)}">{_STYLE}'
            f'<div class="pp-head"><b>{e(TITLE)}</b> · {e(self.lesson.label)}'
            f'<span class="pp-legend"><span class="pp-key pp-built">已学</span>'
            f'<span class="pp-key pp-here">{HERE}</span><span class="pp-key pp-later">还没学到</span></span></div>'
            f'<div class="pp-round">{arrow.join(columns)}</div>'
            f'<div class="pp-loop" aria-hidden="true">↺ 工具结果接到下一轮请求的末尾,再转一圈,直到模型不再调用工具</div>'
            f'<div class="pp-detail" aria-live="polite"><p data-part="" class="pp-muted">'
            f'点一个环节(或用 Tab 键选中后回车),看是哪一课、为了回答什么问题把它加进来的。</p>{"".join(details)}</div>'
            f'<details class="pp-text"><summary>文字版:这一轮的每个环节</summary>'
            f'<ul>{"".join(text)}</ul></details>'
            f'<script>{_SCRIPT.replace("UID", uid)}</script></div>')


_STYLE = """<style>
.prefixlab-picture{border:thin solid var(--pst-color-border,#d0d7de);border-radius:.5rem;padding:.6rem .7rem;margin:.5rem 0 1rem;font-size:.9rem}
.prefixlab-picture .pp-head{display:flex;flex-wrap:wrap;gap:.4rem;align-items:baseline;margin-bottom:.4rem}
.prefixlab-picture .pp-legend{margin-left:auto;display:flex;gap:.3rem;font-size:.8rem}
.prefixlab-picture .pp-key{border-radius:.25rem;padding:0 .4em}
.prefixlab-picture .pp-round{display:flex;align-items:stretch;gap:.15rem}
.prefixlab-picture .pp-zone{flex:1 1 0;min-width:0;display:flex;flex-direction:column;gap:.25rem}
.prefixlab-picture .pp-zone:first-child{flex-grow:1.25}
.prefixlab-picture .pp-zone-title{font-weight:bold;font-size:.85rem}
.prefixlab-picture .pp-note{font-size:.72rem;color:#6b7280;line-height:1.25;min-height:2.2em}
.prefixlab-picture .pp-arrow{align-self:center;color:#9ca3af;font-size:1.1rem}
.prefixlab-picture .pp-part{display:block;width:100%;text-align:left;font:inherit;font-size:.82rem;line-height:1.3;cursor:pointer;border-radius:.3rem;padding:.2rem .4rem;border:thin solid}
.prefixlab-picture .pp-part small{float:right;margin-left:.3em;font-size:.72rem;opacity:.8}
.prefixlab-picture .pp-built{background:rgba(37,99,235,.10);border-color:#2563eb;color:inherit}
.prefixlab-picture .pp-here{background:rgba(245,158,11,.22);border-color:#f59e0b;border-width:.125rem;color:inherit;font-weight:bold}
.prefixlab-picture .pp-later{background:transparent;border:thin dashed #9ca3af;color:#9ca3af}
.prefixlab-picture .pp-badge{display:block;font-size:.7rem;color:#b45309}
.prefixlab-picture .pp-part[aria-pressed=true],.prefixlab-picture .pp-part:focus-visible{outline:.125rem solid #111827;outline-offset:.0625rem}
.prefixlab-picture .pp-loop{font-size:.78rem;color:#6b7280;margin:.35rem 0}
.prefixlab-picture .pp-detail{min-height:2.6em;border-left:.2rem solid #f59e0b;padding:.1rem .6rem;margin:.2rem 0}
.prefixlab-picture .pp-detail p{margin:.2rem 0}
.prefixlab-picture .pp-muted{color:#6b7280}
.prefixlab-picture .pp-text{font-size:.82rem}
.prefixlab-picture .pp-text ul{margin:.2rem 0}
@media (max-width:35rem){.prefixlab-picture .pp-round{flex-direction:column}.prefixlab-picture .pp-arrow{transform:rotate(90deg)}}
</style>"""

# Shows the clicked part's question; buttons get Enter/Space from the browser for free.
_SCRIPT = """(function(){var r=document.getElementById("UID");if(!r)return;
r.addEventListener("click",function(ev){var b=ev.target.closest("button.pp-part");if(!b)return;
r.querySelectorAll(".pp-detail [data-part]").forEach(function(p){p.hidden=p.getAttribute("data-part")!==b.getAttribute("data-part");});
r.querySelectorAll("button.pp-part").forEach(function(x){x.setAttribute("aria-pressed",x===b?"true":"false");});});})();"""


def picture_view(lesson_id: str, *, path: Path = AGENT_PICTURE, toc: Path = TOC) -> PictureView:
    """The picture for lesson ``lesson_id``: what earlier lessons built, what it adds, what comes later."""
    data = load_picture(path)
    current = data.lesson(lesson_id)
    pages = toc_pages(toc)
    here = current.stem and pages.get(current.stem)
    start = posixpath.dirname(here) if here else "book"
    views = []
    for part in data.parts:
        lesson = data.lesson(part.lesson)
        order = data.order(lesson.id) - data.order(current.id)
        state = CURRENT if order == 0 or part.id in current.focus else BUILT if order < 0 else LATER
        page = lesson.stem and pages.get(lesson.stem)
        href = posixpath.relpath(f"{page}.html", start or ".") if page else None
        views.append(PartView(part, lesson, state, href))
    return PictureView(current, data.zones, tuple(views))


def agent_picture(lesson_id: str) -> PictureView:
    """The display object a lesson's first code cell returns."""
    return picture_view(lesson_id)
