"""Helpers for the book's notebooks: figures, 口径 notes, citation cards.

First cell of every chapter/lab notebook::

    from prefixlab.presenting.book import setup_notebook, citation_card, provenance_note
    setup_notebook()

The Sphinx extensions (``sphinx_assets``, ``sphinx_citations``) and the nbval hooks
(``nbval_hooks``) live here too, but are imported by the build / pytest, not by notebooks.
"""

from prefixlab.presenting.book.citations import citation_card
from prefixlab.presenting.book.provenance import provenance_note


def setup_notebook() -> None:
    """Figures render in JupyterLab and in the static book, with a slim template (see ``plotly_setup``)."""
    from prefixlab.presenting.book.plotly_setup import use_book_renderer, use_book_template

    use_book_renderer()
    use_book_template()


__all__ = ["citation_card", "provenance_note", "setup_notebook"]
