"""Walkthroughs: one function of the course's own code, read from the package source, with line notes.

The notes live in ``data/walkthroughs.yml`` (schema ``data/walkthroughs.schema.json``). A note is
anchored to a line by a piece of its text (``at``, optionally ``through`` for a run of lines),
not by a line number, so it stays on its line when code above the function moves; an anchor that
matches no line, or more than one, is an error. The listing is rendered like a citation card's
quote (``citations.render_listing_html``), so citations.js marks the noted lines the same way.

In a notebook::

    from prefixlab.presenting.book.walkthrough import walkthrough
    display(walkthrough("session-path-to"))

In MyST markdown: ``{code-walkthrough}`` (see ``prefixlab.presenting.book.sphinx_citations``).
"""

from __future__ import annotations

import ast
import html
import importlib.util
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jsonschema
import yaml
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from prefixlab.paths import CITATIONS
from prefixlab.presenting.book.citations import (
    CitationError,
    LineNote,
    number_lines,
    render_listing_html,
    render_notes_text,
)

WALKTHROUGHS = CITATIONS.with_name("walkthroughs.yml")
WALKTHROUGHS_SCHEMA = CITATIONS.with_name("walkthroughs.schema.json")
REPO_ROOT = CITATIONS.parents[1]


class WalkthroughError(CitationError):
    """The walkthroughs file is malformed, an anchor does not find its line, or an id is unknown."""


@dataclass(frozen=True)
class Walkthrough:
    id: str
    title: str
    module: str
    object: str
    source_path: Path
    lines: tuple[tuple[int, str], ...]  # (line number in the file, text)
    notes: tuple[LineNote, ...]

    @property
    def label(self) -> str:
        try:
            shown = self.source_path.relative_to(REPO_ROOT)
        except ValueError:
            shown = self.source_path.name
        return f"{shown.as_posix()} · {self.object} 第 {self.lines[0][0]}–{self.lines[-1][0]} 行"


def find_object(source: str, dotted: str, *, where: str) -> tuple[int, int]:
    """First and last line (1-based, decorators included) of ``Class.method`` or ``function``."""
    body, node = ast.parse(source).body, None
    for name in dotted.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == name), None)
        if node is None:
            raise WalkthroughError(f"{where}: no {dotted!r} in the source (missing {name!r})")
        body = node.body
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return first, node.end_lineno


def _anchor(lines: list[tuple[int, str]], text: str, *, where: str, after: int = 0) -> int:
    hits = [number for number, line in lines if text in line and number >= after]
    if len(hits) != 1:
        found = "no line" if not hits else f"{len(hits)} lines ({', '.join(map(str, hits))})"
        raise WalkthroughError(f"{where}: anchor {text!r} must match exactly one line; it matches {found}")
    return hits[0]


def _source_file(module: str, *, where: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise WalkthroughError(f"{where}: module {module!r} has no Python source file")
    return Path(spec.origin)


def build_walkthrough(wid: str, entry: dict, *, source: str) -> Walkthrough:
    where = f"{source}: {wid}"
    path = _source_file(entry["module"], where=where)
    text = path.read_text(encoding="utf-8")
    first, last = find_object(text, entry["object"], where=where)
    all_lines = text.splitlines()
    lines = [(n, all_lines[n - 1]) for n in range(first, last + 1)]
    notes = []
    for item in entry["notes"]:
        start = _anchor(lines, item["at"], where=where)
        end = _anchor(lines, item["through"], where=where, after=start) if "through" in item else start
        notes.append(LineNote(start, end, item["text"].strip()))
    notes.sort(key=lambda n: n.first)
    for before, after in zip(notes, notes[1:]):
        if after.first <= before.last:
            raise WalkthroughError(f"{where}: notes on {before.label} and {after.label} overlap")
    return Walkthrough(wid, entry["title"], entry["module"], entry["object"], path, tuple(lines), tuple(notes))


def parse_walkthroughs(text: str, *, source: str = "walkthroughs.yml") -> dict[str, dict]:
    """Validate the YAML against the schema; entries are resolved against the source on use."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise WalkthroughError(f"{source}: not valid YAML: {error}") from None
    schema = json.loads(WALKTHROUGHS_SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data),
                    key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = [f"  at {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors]
        raise WalkthroughError(f"{source}: {len(errors)} schema error(s):\n" + "\n".join(lines))
    return data["walkthroughs"]


@lru_cache(maxsize=4)
def _entries(path: Path, mtime_ns: int) -> dict[str, dict]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WalkthroughError(f"walkthroughs file not found: {path}") from None
    return parse_walkthroughs(text, source=str(path))


def get_walkthrough(wid: str, path: Path | str = WALKTHROUGHS) -> Walkthrough:
    path = Path(path)
    if not path.is_file():
        raise WalkthroughError(f"walkthroughs file not found: {path}")
    entries = _entries(path, path.stat().st_mtime_ns)
    if wid not in entries:
        raise WalkthroughError(f"unknown walkthrough id {wid!r} (not in {path}); known: {', '.join(entries)}")
    return build_walkthrough(wid, entries[wid], source=str(path))


def _highlighted(lines: tuple[tuple[int, str], ...]) -> list[tuple[int | None, str]]:
    """Numbered lines as HTML, coloured like the book's other Python listings (one line per line)."""
    lexer = PythonLexer(stripnl=False)
    code = highlight("\n".join(text for _, text in lines) + "\n", lexer, HtmlFormatter(nowrap=True))
    coloured = code.split("\n")[: len(lines)]
    assert len(coloured) == len(lines), "pygments changed the number of lines"
    width = len(str(lines[-1][0]))
    return [(n, f"{n:>{width}}  {html_line}") for (n, _), html_line in zip(lines, coloured)]


def render_walkthrough_html(w: Walkthrough) -> str:
    e = html.escape
    listing = render_listing_html(_highlighted(w.lines), w.notes, f"walkthrough-{w.id}",
                                  "prefixlab-walkthrough__code", escaped=True)
    return (f'<div class="prefixlab-walkthrough prefixlab-noted" id="walkthrough-{e(w.id)}">'
            f'<div class="prefixlab-walkthrough__title">{e(w.title)}</div>'
            f'<div class="prefixlab-walkthrough__ref">{e(w.label)}</div>'
            f'<div class="highlight">{listing}</div></div>')


def render_walkthrough_text(w: Walkthrough) -> str:
    listing = "\n".join("    " + line for _, line in number_lines(w.lines))
    return f"{w.title}\n{w.label}\n{listing}\n{render_notes_text(w.notes)}".rstrip("\n")


@dataclass(frozen=True)
class WalkthroughCard:
    walkthrough: Walkthrough

    def _repr_html_(self) -> str:
        return render_walkthrough_html(self.walkthrough)

    def __repr__(self) -> str:
        return render_walkthrough_text(self.walkthrough)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))


def walkthrough(wid: str, path: Path | str = WALKTHROUGHS) -> WalkthroughCard:
    """A displayable listing of one miniagent function with our line notes."""
    return WalkthroughCard(get_walkthrough(wid, path))
