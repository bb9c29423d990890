#!/usr/bin/env python3
"""Open the built book in headless Chromium, the way a reader would, with no network.

    python scripts/browser_check.py [HTML_DIR] [--out DIR] [--query 缓存] [--only book/a6/]

HTML_DIR defaults to _build/html; ``--only`` checks just the pages whose path starts with one of
the given prefixes (the search page is still asked). The site is served on 127.0.0.1; every request to any
other host is blocked and reported. For each page:

- no console errors and no uncaught exceptions;
- every plotly figure div has drawn an SVG (``svg.main-svg``);
- every embedded widget view has been rendered by the html-manager;
- every formula has been typeset by MathJax, none as an error (a TeX package not vendored);
- the agent picture (从已有出发): clicking a lit part, or Enter on it, shows its question;
- every citation card shows its quoted key lines without a network (a card in a folded section once
  the section is opened);
- code citation cards show the "显示原文" button; on the first one the button is clicked
  twice, once with raw.githubusercontent.com answering with a stand-in file (the card
  must show the pinned line range) and once with it unreachable (the card must say so);
- on a page with line notes (citation cards, code walkthroughs), the first noted line is clicked and
  its note must appear under it, then pressed again with Enter and the note must go; with
  JavaScript off the same page must print every note in the list under the code;
- a full-page screenshot is saved in ``--out`` (default _build/browser-check/);
- no table is wider than the page's text column: every folded section (``<details>``: dropdowns,
  hidden outputs, the evolution map) is opened first, then each table's width is compared with the
  column's (a wider table would make the reader scroll sideways);
- the page weight is the body bytes of every response from the local server while the page
  loads and is checked (the browser cache is off, as for a first visit). A lesson page
  (``book/…``) over its budget (``PAGE_BUDGETS``) fails. The report ends with the weight of
  every page and of every file, with how many pages load it.

Then the real search page is asked a Chinese query and must list at least one result.

Needs Debian's ``chromium`` (``/usr/bin/chromium``) and the ``playwright`` Python package
(its own browser download is never used). Exits 1 with one line per problem.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlsplit

CHROMIUM = "/usr/bin/chromium"
# Flags for Chromium as root in a sandbox without network (see the machine notes).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SKIP_PAGES = {"genindex.html", "search.html", "py-modindex.html"}
FOLDED = "details:not([open])"  # a folded section (dropdown, hidden output): its content is not shown yet
# [caption or first header cells, table width, column width] of every rendered table wider than
# the article's text column (1 px of rounding allowed). Hidden tables have no width: open them first.
TABLE_OVERFLOW_JS = """() => {
  const column = ['article.bd-article', 'main', 'body'].map(sel => document.querySelector(sel)).find(Boolean);
  const limit = column.getBoundingClientRect().width;
  const out = [];
  for (const table of column.querySelectorAll('table')) {
    const width = Math.max(table.getBoundingClientRect().width, table.scrollWidth);
    if (width === 0 || width <= limit + 1) continue;
    const caption = table.caption ? table.caption.innerText
      : Array.from(table.querySelectorAll('th')).slice(0, 4).map(th => th.innerText).join(' | ');
    out.push([caption.trim().slice(0, 80), width, limit]);
  }
  return out;
}"""
# Page weight budgets (bytes, first visit) by path prefix; the first matching prefix wins.
# Lab pages carry the ipywidgets html-manager (3.5 MB) and have no budget.
PAGE_BUDGETS = {"book/": 4_000_000}
SMALL_FILE = 10_000  # the per-file table lists files from this size on, the rest as one line
RAW_HOST = "raw.githubusercontent.com"
TIMEOUT_MS = 30_000


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # keep the report readable
        pass


@contextmanager
def serve(directory: Path):
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def content_pages(root: Path) -> list[str]:
    pages = []
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in ("_static", "_sources", "_images") or rel in SKIP_PAGES:
            continue
        if 'http-equiv="refresh"' in path.read_text(encoding="utf-8", errors="replace")[:2000].lower():
            continue  # the root index.html is a redirect to book/index.html
        pages.append(rel)
    return pages


class Checker:
    def __init__(self, context, base: str, out: Path):
        self.context = context
        self.base = base
        self.out = out
        self.problems: list[str] = []
        self.blocked: list[str] = []
        self.weights: dict[str, dict[str, int]] = {}  # page -> {file path: bytes}
        self.raw_mode = "offline"  # or "stand-in"
        context.route("**/*", self._route)  # routing also turns the HTTP cache off: first visits

    def _route(self, route):
        url = route.request.url
        host = urlsplit(url).hostname or ""
        if host == "127.0.0.1" or url.startswith(("data:", "blob:")):
            return route.continue_()
        if host == RAW_HOST and self.raw_mode == "stand-in":
            # A made-up file: line N reads "stand-in line N". No third-party code.
            body = "".join(f"stand-in line {n}\n" for n in range(1, 3001))
            return route.fulfill(status=200, body=body, content_type="text/plain",
                                 headers={"access-control-allow-origin": "*"})
        if host != RAW_HOST:
            self.blocked.append(url)
        return route.abort("internetdisconnected")

    def problem(self, page: str, message: str) -> None:
        self.problems.append(f"{page}: {message}")

    def open(self, page_url: str, label: str):
        page = self.context.new_page()
        errors: list[str] = []

        def on_console(msg):
            # The offline citation step provokes one failed fetch on purpose.
            if msg.type == "error" and RAW_HOST not in (msg.text + str(msg.location)):
                errors.append(msg.text)

        page.on("console", on_console)
        page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
        loaded = []  # requests to the local server that completed

        def on_response(response):
            if response.status >= 400:
                errors.append(f"HTTP {response.status} for {response.url}")

        def on_finished(request):
            if urlsplit(request.url).hostname == "127.0.0.1":
                loaded.append(request)

        page.on("response", on_response)
        page.on("requestfinished", on_finished)
        page.goto(page_url, wait_until="load", timeout=TIMEOUT_MS)
        return page, errors, loaded

    def weigh(self, rel: str, loaded) -> dict[str, int]:
        """Body bytes by file of the finished requests (the local server sends no compression)."""
        files: dict[str, int] = {}
        for request in loaded:
            path = urlsplit(request.url).path.lstrip("/") or "/"
            files[path] = files.get(path, 0) + request.sizes()["responseBodySize"]
        self.weights[rel] = files
        return files

    def check_page(self, rel: str) -> None:
        page, errors, loaded = self.open(f"{self.base}/{rel}", rel)
        try:
            figures = page.locator("div.plotly-graph-div")
            n_fig = figures.count()
            for i in range(n_fig):
                fig = figures.nth(i)
                try:
                    fig.locator("svg.main-svg").first.wait_for(state="attached", timeout=TIMEOUT_MS)
                except Exception:
                    self.problem(rel, f"plotly figure #{i + 1} (id={fig.get_attribute('id')}) drew no SVG")
                    continue
                self.check_controls(rel, page, fig, i + 1)

            views = page.locator('script[type="application/vnd.jupyter.widget-view+json"]')
            n_views = views.count()
            if n_views:
                try:
                    page.wait_for_function(
                        "n => document.querySelectorAll('.jupyter-widgets.widget-container, "
                        ".jupyter-widgets.widget-inline-hbox, .widget-hbox, .widget-slider').length >= n",
                        arg=n_views, timeout=TIMEOUT_MS)
                except Exception:
                    self.problem(rel, f"{n_views} widget view(s) embedded but none rendered")

            n_math = page.locator(".math").count()
            if n_math:
                try:
                    page.wait_for_function(
                        "n => document.querySelectorAll('mjx-container').length >= n",
                        arg=n_math, timeout=TIMEOUT_MS)
                except Exception:
                    self.problem(rel, f"{n_math} formula(s) not typeset by MathJax")
                n_errors = page.locator("mjx-merror").count()
                if n_errors:
                    self.problem(rel, f"{n_errors} formula(s) typeset as a TeX error (a MathJax "
                                      "package not vendored? see _vendor/README.md)")

            cards = page.locator(".prefixlab-citation")
            n_cards = cards.count()
            for i in range(n_cards):  # offline, every card shows its quoted lines (a folded one once opened)
                if cards.nth(i).evaluate("e => !!e.closest('details:not([open])')"):
                    continue  # checked by check_tables, which opens every folded section
                if not cards.nth(i).locator(".prefixlab-citation__quote").is_visible():
                    self.problem(rel, f"citation card #{i + 1} shows no quoted lines")
            fetchable = page.locator(".prefixlab-citation[data-raw-url]")
            if fetchable.count():
                self.check_citation(rel, page, fetchable.first)
            self.check_line_notes(rel, page)
            if page.locator(".prefixlab-picture").count():
                self.check_agent_picture(rel, page)

            page.wait_for_timeout(300)  # late console errors from async loaders
            page.evaluate("document.activeElement && document.activeElement.blur()")
            shot = self.out / (rel.replace("/", "__").removesuffix(".html") + ".png")
            page.screenshot(path=str(shot), full_page=True)
            self.check_tables(rel, page)
            for message in errors:
                self.problem(rel, f"console error: {message}")
            files = self.weigh(rel, loaded)
            total, budget = sum(files.values()), page_budget(rel)
            if budget is not None and total > budget:
                self.problem(rel, f"page weight {total:,} bytes is over its budget of {budget:,} "
                                  "(see the weight tables above)")
            print(f"checked {rel}: {n_fig} figure(s), {n_views} widget view(s), "
                  f"{n_math} formula(s), {n_cards} citation card(s); "
                  f"page weight {total:,} bytes in {len(files)} files -> {shot}")
        finally:
            page.close()

    def check_tables(self, rel: str, page) -> None:
        """No table wider than the text column, with every folded section open."""
        page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        page.wait_for_timeout(100)
        cards = page.locator(".prefixlab-citation")
        for i in range(cards.count()):  # the folded cards too, now open
            if not cards.nth(i).locator(".prefixlab-citation__quote").is_visible():
                self.problem(rel, f"citation card #{i + 1} shows no quoted lines once its section is open")
        wide = page.evaluate(TABLE_OVERFLOW_JS)
        for caption, width, column in wide:
            self.problem(rel, f"a table is wider than the text column ({width:.0f} px > {column:.0f} px): {caption}")

    def check_controls(self, rel: str, page, fig, number: int) -> None:
        """Operate the figure's own menus, buttons and slider like a reader; each must change the figure."""
        # What a control may change: which traces show, the y range, or the marker line and caption
        # a slider step moves (shapes and annotations).
        state = ("el => JSON.stringify([el.data.map(t => t.visible), el.layout.yaxis && el.layout.yaxis.range, "
                 "(el.layout.shapes || []).map(s => [s.x0, s.x1, s.y0, s.y1]), "
                 "(el.layout.annotations || []).map(a => a.text)])")
        before = fig.evaluate(state)
        menus = fig.locator("g.updatemenu-container")
        if menus.count():
            menus.first.scroll_into_view_if_needed()
            kind = fig.evaluate("el => el.layout.updatemenus[0].type || 'dropdown'")
            if kind == "dropdown":  # open it, pick the second entry
                fig.locator("g.updatemenu-header-group").first.click()
                fig.locator("g.updatemenu-dropdown-button").nth(1).click()
            else:  # a row of buttons: press the second
                fig.locator("g.updatemenu-button").nth(1).click()
            page.wait_for_timeout(300)
            after = fig.evaluate(state)
            if after == before:
                self.problem(rel, f"plotly figure #{number}: choosing a menu entry changed nothing")
            before = after
        rail = fig.locator("rect.slider-rail-rect")
        if rail.count():
            rail.first.scroll_into_view_if_needed()
            box = rail.first.bounding_box()
            page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)  # the last step
            page.wait_for_timeout(300)
            if fig.evaluate(state) == before:
                self.problem(rel, f"plotly figure #{number}: moving the slider changed nothing")

    def check_citation(self, rel: str, page, card) -> None:
        button = card.locator(".prefixlab-citation__show")
        if not button.is_visible():
            self.problem(rel, "citation card has no visible 显示原文 button (citations.js not loaded?)")
            return
        first = int(card.get_attribute("data-first-line"))
        last = int(card.get_attribute("data-last-line"))
        status = card.locator(".prefixlab-citation__status")
        # Offline first: the card must explain itself and keep the button usable.
        self.raw_mode = "offline"
        button.click()
        try:
            page.wait_for_function("el => el.textContent.includes('无法获取原文')",
                                   arg=status.element_handle(), timeout=TIMEOUT_MS)
        except Exception:
            self.problem(rel, "offline citation fetch: no offline message "
                              f"(status={status.text_content()!r})")
        # Then "online", with a stand-in file: exactly the pinned lines appear.
        self.raw_mode = "stand-in"
        button.click()
        source = card.locator(".prefixlab-citation__source")
        try:
            source.wait_for(state="visible", timeout=TIMEOUT_MS)
            text = source.text_content()
            lines = text.splitlines()
            if (len(lines) != last - first + 1 or f"stand-in line {first}" not in lines[0]
                    or f"stand-in line {last}" not in lines[-1]):
                self.problem(rel, f"citation source shows wrong lines for L{first}-L{last}: {text[:120]!r}")
        except Exception:
            self.problem(rel, "citation source never shown with the stand-in file")
        self.raw_mode = "offline"

    def check_line_notes(self, rel: str, page) -> None:
        """Click the first noted line: its note shows under it; Enter hides it; without JS all notes print."""
        lines = page.locator(".prefixlab-noted .prefixlab-notes__line")
        if not lines.count():
            return
        # the first listing the reader sees unfolded (a card in a closed dropdown is not clickable yet)
        listing = page.locator(f".prefixlab-noted:not({FOLDED} .prefixlab-noted)",
                               has=page.locator(".prefixlab-notes__line")).first
        line = listing.locator(".prefixlab-notes__line").first
        number = line.get_attribute("data-note")
        expected = listing.locator(f'.prefixlab-notes__list li[data-note="{number}"]').text_content()
        line.scroll_into_view_if_needed()
        line.click()
        shown = listing.locator(f'.prefixlab-notes__shown[data-note="{number}"]')
        try:
            shown.wait_for(state="visible", timeout=TIMEOUT_MS)
            if shown.text_content() != expected:
                self.problem(rel, f"line note #{number} shows {shown.text_content()!r}, not its note")
        except Exception:
            self.problem(rel, "clicking a noted line showed no note (citations.js not loaded?)")
        shot = self.out / (rel.replace("/", "__").removesuffix(".html") + "__line-note.png")
        listing.screenshot(path=str(shot))
        line.focus()
        page.keyboard.press("Enter")
        if shown.count():
            self.problem(rel, "pressing Enter on an open noted line did not hide its note")
        # Without JavaScript the notes are printed under the code, every one of them.
        context = page.context.browser.new_context(java_script_enabled=False)
        try:
            static = context.new_page()
            static.route(re.compile(r"^(?!" + re.escape(self.base) + ")"), lambda route: route.abort())
            static.goto(f"{self.base}/{rel}")
            items = static.locator(".prefixlab-noted .prefixlab-notes__list li")
            visible = sum(items.nth(i).is_visible() for i in range(items.count()))
            folded = static.locator(f"{FOLDED} .prefixlab-noted .prefixlab-notes__line").count()
            if visible != static.locator(".prefixlab-noted .prefixlab-notes__line").count() - folded:
                self.problem(rel, f"without JavaScript {visible} of the line notes are printed")
        finally:
            context.close()
        print(f"  line notes on {rel}: clicked note #{number}, {lines.count()} noted line(s) -> {shot}")

    def check_agent_picture(self, rel: str, page) -> None:
        """The agent picture (从已有出发): clicking a lit part, or Enter on it, shows its lesson's question."""
        picture = page.locator(".prefixlab-picture").first
        lit = picture.locator("button.pp-built, button.pp-here")
        if lit.count() < 2:
            self.problem(rel, "agent picture: fewer than two lit parts")
            return
        for n, how in ((0, "click"), (lit.count() - 1, "Enter")):
            button = lit.nth(n)
            part = button.get_attribute("data-part")
            if how == "click":
                button.click()
            else:
                button.focus()
                page.keyboard.press("Enter")
            shown = picture.locator(f'.pp-detail [data-part="{part}"]')
            if not shown.is_visible() or "回答的问题" not in (shown.text_content() or ""):
                self.problem(rel, f"agent picture: {how} on part {part!r} did not show its question")

    def check_search(self, query: str) -> None:
        rel = f"search.html?q={query}"
        page, errors, _loaded = self.open(f"{self.base}/search.html?q={quote(query)}", rel)
        try:
            results = page.locator("#search-results ul.search li")
            try:
                results.first.wait_for(state="attached", timeout=TIMEOUT_MS)
            except Exception:
                summary = page.locator("#search-results").text_content() or ""
                self.problem(rel, f"Chinese search returned no result ({summary.strip()[:120]!r})")
            count = results.count()
            page.screenshot(path=str(self.out / "search.png"), full_page=True)
            for message in errors:
                self.problem(rel, f"console error: {message}")
            print(f"checked search {query!r}: {count} result(s)")
        finally:
            page.close()


def page_budget(rel: str) -> int | None:
    for prefix, budget in PAGE_BUDGETS.items():
        if rel.startswith(prefix):
            return budget
    return None


def weight_tables(weights: dict[str, dict[str, int]]) -> str:
    """The weight of every page, then of every file (bytes, how many pages load it)."""
    lines = ["page weights (bytes, first visit):",
             f"  {'page':<44} {'files':>5} {'bytes':>11} {'budget':>11}"]
    for rel, files in weights.items():
        budget = page_budget(rel)
        total = sum(files.values())
        mark = "" if budget is None else ("  OVER" if total > budget else "  ok")
        budget_text = "-" if budget is None else f"{budget:,}"
        lines.append(f"  {rel:<44} {len(files):>5} {total:>11,} {budget_text:>11}{mark}")
    by_file: dict[str, tuple[int, int]] = {}
    for files in weights.values():
        for path, size in files.items():
            biggest, pages = by_file.get(path, (0, 0))
            by_file[path] = (max(biggest, size), pages + 1)
    lines += ["file weights (bytes; pages loading it):", f"  {'bytes':>11} {'pages':>5}  file"]
    small = [0, 0]
    for path, (size, pages) in sorted(by_file.items(), key=lambda item: -item[1][0]):
        if size < SMALL_FILE:
            small[0] += 1
            small[1] += size
            continue
        lines.append(f"  {size:>11,} {pages:>5}  {path}")
    lines.append(f"  {small[1]:>11,}        {small[0]} smaller files")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html_dir", nargs="?", default="_build/html", type=Path)
    parser.add_argument("--out", default=Path("_build/browser-check"), type=Path)
    parser.add_argument("--query", default="缓存")
    parser.add_argument("--only", nargs="*", default=None, metavar="PREFIX",
                        help="check only the pages whose path starts with one of these (e.g. book/a6/)")
    args = parser.parse_args(argv)

    root = args.html_dir.resolve()
    if not (root / "search.html").is_file():
        print(f"browser_check: {root} is not a built book (no search.html); build it first", file=sys.stderr)
        return 1
    if not Path(CHROMIUM).is_file():
        print(f"browser_check: {CHROMIUM} missing: apt-get install -y chromium", file=sys.stderr)
        return 1
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser_check: the playwright Python package is missing (pip install playwright)",
              file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)

    pages = content_pages(root)
    if args.only:
        pages = [rel for rel in pages if rel.startswith(tuple(args.only))]
    with serve(root) as base, sync_playwright() as pw, \
            tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900}, locale="zh-CN")
        checker = Checker(context, base, args.out)
        for rel in pages:
            checker.check_page(rel)
        checker.check_search(args.query)
        context.close()

    print(weight_tables(checker.weights))
    for url in sorted(set(checker.blocked)):
        checker.problems.append(f"request to another host blocked: {url}")
    if checker.problems:
        print(f"browser_check: FAILED ({len(checker.problems)} problem(s)):", file=sys.stderr)
        for line in checker.problems:
            print(f"  - {line}", file=sys.stderr)
        return 1
    print(f"browser_check: passed ({len(pages)} page(s) + search), screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
