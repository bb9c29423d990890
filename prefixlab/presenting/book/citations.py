"""Citation cards: another project's code, pinned to a commit, explained in our words.

The data lives in ``data/citations.yml`` (schema ``data/citations.schema.json``). A card
shows the permalink at the pin, our explanation, the licence and when we checked it,
plus an erratum when upstream has moved on. A few key lines are quoted verbatim with their line
numbers (``quote``), so the card makes its point offline; the whole pinned range is never copied
into the book: the "显示原文" button (``_static/citations.js``) fetches it from
raw.githubusercontent.com when the reader is online. A package citation (``package``:
``name==version``) pins the lines to a published source distribution instead of a commit, for a
project we cannot pin on GitHub at the version we run; it has no button (nothing to fetch). A page
citation (``url``) quotes a few sentences of a vendor's documentation page instead.

In a notebook::

    from prefixlab.presenting.book import citation_card
    display(citation_card("hermes-memory-frozen"))

A code card may carry line notes (``notes``): our words on one quoted line or a run of quoted
lines. The static page marks those lines; clicking one shows its note beside it (citations.js),
and without JavaScript the notes are printed under the code as a list keyed to the line numbers.

In MyST markdown, see ``prefixlab.presenting.book.sphinx_citations`` (directive and role).
"""

from __future__ import annotations

import difflib
import html
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jsonschema
import yaml

from prefixlab.paths import CITATIONS, CITATIONS_SCHEMA


class CitationError(ValueError):
    """The citations file is malformed, or a citation id does not exist."""


@dataclass(frozen=True)
class LineNote:
    """Our words on lines ``first``..``last`` (inclusive) of a listing."""

    first: int
    last: int
    text: str

    @property
    def label(self) -> str:
        return f"第 {self.first} 行" if self.first == self.last else f"第 {self.first}–{self.last} 行"


@dataclass(frozen=True)
class Citation:
    """One card: a pinned line range of another project's file, or a vendor's documentation page."""

    id: str
    explanation: str
    checked: str
    quote: tuple[tuple[int | None, str], ...]  # (line number or None for a page, verbatim text)
    title: str | None = None
    checked_via: str | None = None
    erratum: str | None = None
    notes: tuple[LineNote, ...] = ()
    # a code citation
    repo: str | None = None
    commit: str | None = None
    path: str | None = None
    first_line: int | None = None
    last_line: int | None = None
    licence: str | None = None
    package: str | None = None  # a code citation pinned to a source distribution (name==version), not a commit
    # a page citation
    url: str | None = None
    publisher: str | None = None
    page: str | None = None

    @property
    def is_code(self) -> bool:
        return self.url is None

    @property
    def line_anchor(self) -> str:
        if self.first_line == self.last_line:
            return f"L{self.first_line}"
        return f"L{self.first_line}-L{self.last_line}"

    @property
    def permalink(self) -> str:
        if not self.is_code:
            return self.url
        if self.package:
            name, version = self.package.split("==")
            return f"https://pypi.org/project/{name}/{version}/"
        return f"https://github.com/{self.repo}/blob/{self.commit}/{self.path}#{self.line_anchor}"

    @property
    def raw_url(self) -> str | None:
        """Where citations.js fetches the whole range; None for a page or a package (the quote is all the card shows)."""
        if not self.is_code or self.package:
            return None
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{self.path}"

    @property
    def short_ref(self) -> str:
        """``owner/name@abc1234:path#L1-L24`` (or the page's address) — how the book writes it in running text."""
        if not self.is_code:
            return self.url.removeprefix("https://")
        if self.package:
            return f"{self.package}:{self.path}:{self.first_line}-{self.last_line}"
        return f"{self.repo}@{self.commit[:7]}:{self.path}#{self.line_anchor}"

    @property
    def source_label(self) -> str:
        """The card's link text."""
        if not self.is_code:
            return f"{self.publisher} · {self.page}"
        if self.package:
            return f"{self.package}(PyPI 源码包)· {self.path} 第 {self.first_line}–{self.last_line} 行"
        return f"{self.repo} · {self.path} 第 {self.first_line}–{self.last_line} 行"

    def quote_lines(self) -> list[str]:
        """The quote as the card prints it: numbered lines, with ``⋮`` where lines are left out."""
        return [text for _, text in self.numbered_quote()]

    def numbered_quote(self) -> list[tuple[int | None, str]]:
        """``quote_lines`` with each printed line's source line number (None for ``⋮`` and pages)."""
        if not self.is_code:
            return [(None, text) for _, text in self.quote]
        return number_lines(self.quote)

    def texts(self) -> dict[str, str]:
        """Every free text a card shows, by field (what tests check for cut-off text)."""
        fields = {"title": self.title, "explanation": self.explanation, "checked_via": self.checked_via,
                  "erratum": self.erratum, "page": self.page, "publisher": self.publisher}
        fields["quote"] = "\n".join(text for _, text in self.quote)
        fields.update({f"note {n.label}": n.text for n in self.notes})
        return {k: v for k, v in fields.items() if v}


def number_lines(lines) -> list[tuple[int | None, str]]:
    """``(number, text)`` pairs as printed lines ``"  12  text"``, with ``⋮`` over left-out lines."""
    width = len(str(lines[-1][0]))
    out, previous = [], None
    for number, text in lines:
        if previous is not None and number > previous + 1:
            out.append((None, " " * width + "  ⋮"))
        out.append((number, f"{number:>{width}}  {text}"))
        previous = number
    return out


def render_listing_html(numbered: list[tuple[int | None, str]], notes: tuple[LineNote, ...],
                        anchor: str, css_class: str, *, escaped: bool = False) -> str:
    """A numbered listing; with notes, each noted run of lines links to its note in a list below.

    Without JavaScript the link jumps to the note in the list; citations.js turns the links into
    toggles that show the note right under the lines and hides the list. ``escaped``: the lines
    are HTML already (highlighted code), each closing its own tags.
    """
    e = html.escape
    line_html = (lambda text: text) if escaped else e
    if not notes:
        return f'<pre class="{css_class}">{chr(10).join(line_html(text) for _, text in numbered)}</pre>'
    starts = {note.first: k for k, note in enumerate(notes, 1)}
    parts, i = [], 0
    while i < len(numbered):
        number, text = numbered[i]
        k = starts.get(number)
        if k is None:
            parts.append(line_html(text))
            i += 1
            continue
        last, run = notes[k - 1].last, []
        while i < len(numbered) and numbered[i][0] is not None and numbered[i][0] <= last:
            run.append(line_html(numbered[i][1]))
            i += 1
        parts.append(f'<a class="prefixlab-notes__line" href="#{e(anchor)}-note-{k}" data-note="{k}" '
                     f'title="点击查看这几行的注释">{chr(10).join(run)}</a>')
    items = "".join(
        f'<li id="{e(anchor)}-note-{k}" data-note="{k}"><span class="prefixlab-notes__where">'
        f"{e(note.label)}</span>:{e(note.text)}</li>"
        for k, note in enumerate(notes, 1)
    )
    return (f'<pre class="{css_class} prefixlab-notes__code">{chr(10).join(parts)}</pre>'
            f'<ol class="prefixlab-notes__list" aria-label="逐行注释">{items}</ol>')


def render_notes_text(notes: tuple[LineNote, ...]) -> str:
    """The notes as plain lines (text/plain output and non-HTML builders)."""
    return "".join(f"注 {k} · {note.label}:{note.text}\n" for k, note in enumerate(notes, 1))


def _yaml_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CitationError(f"citations file not found: {path}") from None


def parse_citations(text: str, *, source: str = "citations.yml") -> dict[str, Citation]:
    """Validate citations YAML against the schema and return the entries by id."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise CitationError(f"{source}: not valid YAML: {error}") from None
    schema = json.loads(CITATIONS_SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(data),
        key=lambda e: list(map(str, e.absolute_path)),
    )
    if errors:
        lines = [f"  at {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors]
        raise CitationError(f"{source}: {len(errors)} schema error(s):\n" + "\n".join(lines))

    citations = {}
    for cid, entry in data["citations"].items():
        fields = {k: v for k, v in entry.items() if k not in ("lines", "quote", "notes")}
        if "url" in entry:
            quote = tuple((None, text) for text in entry["quote"])
            citations[cid] = Citation(id=cid, quote=quote, **fields)
            continue
        first, last = entry["lines"]
        if first > last:
            raise CitationError(f"{source}: {cid}: lines [{first}, {last}] run backwards")
        numbers = [q["line"] for q in entry["quote"]]
        if numbers != sorted(set(numbers)) or not first <= numbers[0] <= numbers[-1] <= last:
            raise CitationError(f"{source}: {cid}: quote lines {numbers} must ascend inside lines [{first}, {last}]")
        quote = tuple((q["line"], q["text"]) for q in entry["quote"])
        notes = _parse_notes(entry.get("notes", []), set(numbers), where=f"{source}: {cid}")
        citations[cid] = Citation(id=cid, first_line=first, last_line=last, quote=quote,
                                  notes=notes, **fields)
    return citations


def _parse_notes(raw: list[dict], shown: set[int], *, where: str) -> tuple[LineNote, ...]:
    """Notes in line order; each covers only lines the card shows, and no two overlap."""
    notes = []
    for item in raw:
        first, last = item["lines"] if "lines" in item else (item["line"], item["line"])
        note = LineNote(first, last, item["text"].strip())
        missing = [n for n in range(first, last + 1) if n not in shown]
        if first > last or missing:
            raise CitationError(
                f"{where}: note on {note.label} must cover only lines the card quotes "
                f"(quoted: {sorted(shown)}; not quoted: {missing or 'range runs backwards'})")
        notes.append(note)
    notes.sort(key=lambda n: n.first)
    for before, after in zip(notes, notes[1:]):
        if after.first <= before.last:
            raise CitationError(f"{where}: notes on {before.label} and {after.label} overlap")
    return tuple(notes)


@lru_cache(maxsize=4)
def _load_cached(path: Path, mtime_ns: int) -> dict[str, Citation]:
    return parse_citations(_yaml_text(path), source=str(path))


def load_citations(path: Path | str = CITATIONS) -> dict[str, Citation]:
    path = Path(path)
    if not path.is_file():
        raise CitationError(f"citations file not found: {path}")
    return _load_cached(path, path.stat().st_mtime_ns)


def get_citation(cid: str, path: Path | str = CITATIONS) -> Citation:
    citations = load_citations(path)
    try:
        return citations[cid]
    except KeyError:
        close = difflib.get_close_matches(cid, list(citations), n=3)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise CitationError(f"unknown citation id {cid!r} (not in {path}).{hint}") from None


def render_card_html(c: Citation) -> str:
    """One self-contained card; styling in ``_static/prefixlab.css``, button in citations.js.

    The quoted key lines are part of the card, so it reads offline; a code card's button fetches
    the whole pinned range when the reader is online.
    """
    e = html.escape
    title = f'<div class="prefixlab-citation__title">{e(c.title)}</div>' if c.title else ""
    erratum = (
        f'<p class="prefixlab-citation__erratum"><strong>勘误:</strong>{e(c.erratum)}</p>'
        if c.erratum
        else ""
    )
    via = f" · {e(c.checked_via)}" if c.checked_via else ""
    if c.is_code and c.package:  # no commit to fetch from: the quoted lines are the card
        data = ""
        quote = render_listing_html(c.numbered_quote(), c.notes, f"citation-{c.id}",
                                    "prefixlab-citation__quote")
        meta = f"源码包 <code>{e(c.package)}</code> · 许可证 {e(c.licence)} · 核对于 {e(c.checked)}{via}"
        fetch = ""
    elif c.is_code:
        data = (f' data-raw-url="{e(c.raw_url)}" data-first-line="{c.first_line}"'
                f' data-last-line="{c.last_line}"')
        quote = render_listing_html(c.numbered_quote(), c.notes, f"citation-{c.id}",
                                    "prefixlab-citation__quote")
        meta = f"提交 <code>{e(c.commit[:12])}</code> · 许可证 {e(c.licence)} · 核对于 {e(c.checked)}{via}"
        # Hidden until citations.js runs, so a card without the script shows no dead button.
        fetch = ('<button type="button" class="prefixlab-citation__show" hidden>显示原文</button>'
                 '<div class="prefixlab-citation__status" aria-live="polite"></div>'
                 '<pre class="prefixlab-citation__source" hidden></pre>')
    else:
        data = ""
        quote = ('<blockquote class="prefixlab-citation__quote" lang="en">'
                 + "".join(f"<p>{e(text)}</p>" for text in c.quote_lines()) + "</blockquote>")
        meta = f"读取于 {e(c.checked)}{via}"
        fetch = ""
    noted = " prefixlab-noted" if c.notes else ""
    return (
        f'<div class="prefixlab-citation{noted}" id="citation-{e(c.id)}" data-citation-id="{e(c.id)}"{data}>'
        f"{title}"
        f'<div class="prefixlab-citation__ref"><a href="{e(c.permalink)}" target="_blank" '
        f'rel="noopener">{e(c.source_label)}</a></div>'
        f"{quote}"
        f'<p class="prefixlab-citation__explanation">{e(c.explanation)}</p>'
        f"{erratum}"
        f'<div class="prefixlab-citation__meta">{meta}</div>'
        f"{fetch}"
        "</div>"
    )


def render_card_text(c: Citation) -> str:
    quote = "\n".join("    " + line for line in c.quote_lines())
    text = f"引用 [{c.id}] {c.short_ref}\n{quote}\n{render_notes_text(c.notes)}{c.explanation}\n"
    if c.is_code:
        text += f"许可证 {c.licence} · 核对于 {c.checked}"
    else:
        text += f"读取于 {c.checked}"
    if c.checked_via:
        text += f" · {c.checked_via}"
    if c.erratum:
        text += f"\n勘误:{c.erratum}"
    return text


@dataclass(frozen=True)
class CitationCard:
    citation: Citation

    def _repr_html_(self) -> str:
        return render_card_html(self.citation)

    def __repr__(self) -> str:
        return render_card_text(self.citation)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))


def citation_card(cid: str, path: Path | str = CITATIONS) -> CitationCard:
    """A displayable card: ``display(citation_card("hermes-memory-frozen"))``."""
    return CitationCard(get_citation(cid, path))
