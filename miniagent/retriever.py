"""Which saved notes match a request: BM25 ranking with the ``bm25s`` library.

    Retriever(notes).search("Add Kelvin support", k=5)   # indices into notes, best first

BM25 scores a note by the words it shares with the query, rarer words counting more, with a
correction for long notes. ``bm25s`` does all of it: lower-casing, splitting into words,
dropping English stop words, stemming ("tests" and "testing" both become "test", with
PyStemmer's Snowball stemmer) and the scoring. This module only decides what a *hit* is: a
note that shares at least one word with the query (score above 0). A query that shares no
word with any note gets no hits rather than k arbitrary notes.

Why BM25 and not an embedding model: it runs on the CPU in milliseconds, needs no model
weights, gives the same answer every time, and a reader can see why a note matched (the
shared words). The price: a request worded differently from the note it needs finds nothing.
"""
from __future__ import annotations


class Retriever:
    """A BM25 index over one list of notes (build a new one when the notes change)."""

    def __init__(self, notes: list[str]):
        # Imported here, not at the top: only modes select and retrieve rank notes, so every other
        # start of miniagent skips loading bm25s and numpy.
        import bm25s
        import Stemmer

        self.notes = list(notes)
        self.tokenizer = bm25s.tokenization.Tokenizer(stopwords="en", stemmer=Stemmer.Stemmer("english"))
        self.index = None
        if self.notes:  # an empty store has nothing to index: every search finds nothing
            ids = self.tokenizer.tokenize(self.notes, update_vocab=True, show_progress=False, return_as="ids")
            self.index = bm25s.BM25()
            self.index.index(ids, show_progress=False)

    def scores(self, query: str) -> list[float]:
        """BM25 score of every note for ``query``, in note order (0: no word in common)."""
        if self.index is None:
            return []
        # update_vocab=False: a word no note has maps to the empty token, which scores 0
        query_ids = self.tokenizer.tokenize([query], update_vocab=False, show_progress=False, return_as="ids")[0]
        if not query_ids:
            return [0.0] * len(self.notes)
        return [float(s) for s in self.index.get_scores(query_ids)]

    def search(self, query: str, k: int) -> list[int]:
        """Indices of at most ``k`` notes that share a word with ``query``, best first
        (ties keep note order)."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        scores = self.scores(query)
        ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: -scores[i])
        return ranked[:k]
