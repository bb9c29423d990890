"""Helpers for the book's notebooks: figures, 口径 notes, citation cards.

First cell of every chapter/lab notebook::

    from prefixlab.presenting.book import setup_notebook, citation_card, provenance_note
    setup_notebook()

``citations``          citation cards (data/citations.yml): a permalink, our explanation, the license
``provenance``         the 口径 note under every figure: which recording, model, server, tokenizer
``plotly_setup``       the plotly renderer that draws figures in JupyterLab and in the static book
``glue``               ``glue_text``/``glue_all``: numbers the prose cites, glued under a name
``table``              ``Table``: a small table with a text form (nbval) and an HTML form (the book)
``walkthrough``        a miniagent function read from the package source, with notes on its lines
                       (data/walkthroughs.yml; the ``code-walkthrough`` directive shows it)
``course_map``         every part, chapter and lesson of the book, read from _toc.yml

Imported by the build or by pytest, not by notebooks:

``sphinx_assets``      Sphinx extension: vendored JS and CSS the pages need (plotly, widgets, require.js)
``sphinx_citations``   Sphinx extension: the ``citation`` directive and the ``cite-code`` role
``sphinx_course_map``  Sphinx extension: the ``course-map`` directive (front page, chapter pages)
``sphinx_quotes``      Sphinx extension: straight double quotes in the prose paired as “ and ” per paragraph
``search_index``       the Chinese search: glossary terms as jieba words, the agent picture and course map left out
``nbval_hooks``        nbval: compare every output, figures (plotly JSON and HTML) included
"""

from prefixlab.presenting.book.citations import citation_card
from prefixlab.presenting.book.provenance import provenance_note


def setup_notebook() -> None:
    """Figures render in JupyterLab and in the static book, with a slim template (see ``plotly_setup``)."""
    from prefixlab.presenting.book.plotly_setup import use_book_renderer, use_book_template

    use_book_renderer()
    use_book_template()


__all__ = ["citation_card", "provenance_note", "setup_notebook"]
