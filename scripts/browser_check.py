#!/usr/bin/env python3
"""Open the built book in headless Chromium, the way a reader would, with no network.

    python scripts/browser_check.py [HTML_DIR] [--out DIR] [--query 缓存]

HTML_DIR defaults to _build/html. The site is served on 127.0.0.1; every request to any
other host is blocked and reported. For each page:

- no console errors and no uncaught exceptions;
- every plotly figure div has drawn an SVG (``svg.main-svg``);
- every embedded widget view has been rendered by the html-manager;
- every formula has been typeset by MathJax;
- the agent picture (从已有出发): clicking a lit part, or Enter on it, shows its question;
- every citation card shows its quoted key lines without a network;
- code citation cards show the "显示原文" button; on the first one the button is clicked
  twice, once with raw.githubusercontent.com answering with a stand-in file (the card
  must show the pinned line range) and once with it unreachable (the card must say so);
- a full-page screenshot is saved in ``--out`` (default _build/browser-check/), and the
  page weight (bytes of every response from the local server) is printed.

Then the real search page is asked a Chinese query and must list at least one result.

Needs Debian's ``chromium`` (``/usr/bin/chromium``) and the ``playwright`` Python package
(its own browser download is never used). Exits 1 with one line per problem.
"""

from __future__ import annotations

import argparse
import functools
import http.server
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
        self.raw_mode = "offline"  # or "stand-in"
        context.route("**/*", self._route)

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
        weight = {"bytes": 0, "requests": 0}

        def on_response(response):
            if response.status >= 400:
                errors.append(f"HTTP {response.status} for {response.url}")
            elif urlsplit(response.url).hostname == "127.0.0.1":
                try:
                    weight["bytes"] += len(response.body())
                    weight["requests"] += 1
                except Exception:  # redirects and aborted loads have no body
                    pass

        page.on("response", on_response)
        page.goto(page_url, wait_until="load", timeout=TIMEOUT_MS)
        return page, errors, weight

    def check_page(self, rel: str) -> None:
        page, errors, weight = self.open(f"{self.base}/{rel}", rel)
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

            cards = page.locator(".prefixlab-citation")
            n_cards = cards.count()
            for i in range(n_cards):  # offline, every card shows its quoted lines
                if not cards.nth(i).locator(".prefixlab-citation__quote").is_visible():
                    self.problem(rel, f"citation card #{i + 1} shows no quoted lines")
            fetchable = page.locator(".prefixlab-citation[data-raw-url]")
            if fetchable.count():
                self.check_citation(rel, page, fetchable.first)
            if page.locator(".prefixlab-picture").count():
                self.check_agent_picture(rel, page)

            page.wait_for_timeout(300)  # late console errors from async loaders
            page.evaluate("document.activeElement && document.activeElement.blur()")
            shot = self.out / (rel.replace("/", "__").removesuffix(".html") + ".png")
            page.screenshot(path=str(shot), full_page=True)
            for message in errors:
                self.problem(rel, f"console error: {message}")
            print(f"checked {rel}: {n_fig} figure(s), {n_views} widget view(s), "
                  f"{n_math} formula(s), {n_cards} citation card(s); "
                  f"page weight {weight['bytes']:,} bytes in {weight['requests']} requests -> {shot}")
        finally:
            page.close()

    def check_controls(self, rel: str, page, fig, number: int) -> None:
        """Operate the figure's own menus, buttons and slider like a reader; each must change the figure."""
        state = ("el => JSON.stringify([el.data.map(t => t.visible), el.layout.yaxis && el.layout.yaxis.range])")
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
        page, errors, _ = self.open(f"{self.base}/search.html?q={quote(query)}", rel)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html_dir", nargs="?", default="_build/html", type=Path)
    parser.add_argument("--out", default=Path("_build/browser-check"), type=Path)
    parser.add_argument("--query", default="缓存")
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
