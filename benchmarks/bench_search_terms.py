"""How many glossary terms the book's search finds nothing for, and whether each finds its page.

    .venv/bin/python benchmarks/bench_search_terms.py            # the search as the book builds it now
    .venv/bin/python benchmarks/bench_search_terms.py --before main

``--before REV`` measures the search as it was at git revision REV: Sphinx's stock Chinese
search (one-character words dropped) with that revision's ``zh_search_terms.txt`` as the jieba
user dictionary. Both cut every page of ``_toc.yml`` (its markdown, see
``search_index.source_texts``) the way Sphinx's index does and match each glossary term the way
the search page does (``search_index.query_terms`` / ``page_matches``). The agent picture and
the course map are outputs/directives, not markdown, so they are not in these texts either way.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prefixlab.presenting.book import search_index  # noqa: E402
from prefixlab.presenting.book.course_map import page_file, toc_files  # noqa: E402


def stock_language(dictionary: Path):
    import jieba
    from sphinx.search.zh import SearchChinese

    class Stock(SearchChinese):
        def init(self, options):
            super().init(options)
            jieba.load_userdict(str(dictionary))

    return Stock


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="measure the search of this git revision")
    args = parser.parse_args()
    glossary = ROOT / search_index.GLOSSARY
    if args.before:
        old = subprocess.run(["git", "-C", str(ROOT), "show",
                              f"{args.before}:prefixlab/presenting/book/zh_search_terms.txt"],
                             check=True, capture_output=True, text=True).stdout
        tmp = Path(tempfile.mkdtemp()) / "zh_search_terms.txt"
        tmp.write_text(old, encoding="utf-8")
        language_class = stock_language(tmp)
    else:
        language_class = search_index.make_search_language(glossary)
    language = language_class({})
    words = {page: search_index.page_words(language, search_index.source_texts(page_file(page, ROOT)))
             for page in toc_files()}
    entries = search_index.glossary_entries(glossary)
    misses, wrong = [], []
    for names, defining in entries:
        for name in names:
            terms = search_index.query_terms(name)
            found = [p for p, w in words.items() if search_index.page_matches(terms, w)]
            mark = ""
            if not found:
                misses.append(name)
                mark = "  <- 0 results"
            elif defining and defining not in found:
                wrong.append(name)
                mark = f"  <- not its defining page {defining}"
            print(f"{name}\t{len(found)} pages{mark}")
    total = sum(len(n) for n, _ in entries)
    print(f"\n{'before ' + args.before if args.before else 'now'}: {len(misses)} of {total} glossary terms "
          f"return 0 results; {len(wrong)} miss their defining page")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
