"""Which saved notes match a request: BM25 ranking with the ``bm25s`` library.

    Retriever(notes).search("Add Kelvin support", k=5)   # indices into notes, best first

BM25 scores a note by the words it shares with the query, rarer words counting more, with a
correction for long notes. ``bm25s`` does all of it: lower-casing, splitting into words,
dropping English stop words, stemming ("tests" and "testing" both become "test", with
PyStemmer's Snowball stemmer) and the scoring. This module only decides what a *hit* is: a
note that shares at least one word with the query (score above 0). A query that shares no
word with any note gets no hits rather than k arbitrary notes.

Chinese is written without spaces, so on its own the splitter would take a whole run of Chinese
characters for one word, and a Chinese request would share no word with a Chinese note. Each run
is cut into words with ``jieba`` first, and common Chinese function words ("的", "是", ...) are
stop words too. Text without Chinese characters is split exactly as bm25s splits it by default.

Why BM25 and not an embedding model: it runs on the CPU in milliseconds, needs no model
weights, gives the same answer every time, and a reader can see why a note matched (the
shared words). The price: a request worded differently from the note it needs finds nothing.
"""
from __future__ import annotations

import re

WORD = re.compile(r"(?u)\b\w\w+\b")  # bm25s's default splitter: words of two or more characters
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")  # runs of Chinese characters


def split_words(text: str) -> list[str]:
    """The words of ``text``: bm25s's default split, with each run of Chinese characters cut by jieba."""
    if not HAN.search(text):
        return WORD.findall(text)
    import jieba  # only text with Chinese characters pays for loading its dictionary
    jieba.setLogLevel(30)  # WARNING: no "Building prefix dict" lines
    words, start = [], 0
    for run in HAN.finditer(text):
        words += WORD.findall(text[start:run.start()])
        words += [w for w in jieba.lcut(run.group()) if w.strip()]  # a one-character word counts here
        start = run.end()
    return words + WORD.findall(text[start:])


class Retriever:
    """A BM25 index over one list of notes (build a new one when the notes change)."""

    def __init__(self, notes: list[str]):
        # Imported here, not at the top: only modes select and retrieve rank notes, so every other
        # start of miniagent skips loading bm25s and numpy.
        import bm25s
        import Stemmer
        from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN

        self.notes = list(notes)
        self.tokenizer = bm25s.tokenization.Tokenizer(splitter=split_words, stemmer=Stemmer.Stemmer("english"),
                                                      stopwords=[*STOPWORDS_EN, *STOPWORDS_CHINESE])
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
