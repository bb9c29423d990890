"""Side lesson A6·R's lab (labs/a6/memory-retrieval.ipynb): ask the T14 notes anything, see what BM25 picks.

    lab = RetrievalLab()                                  # data/a6/t14/notes.yml and the recall set
    print(lab.describe("Add Kelvin support", k=5))        # the picks, their scores and shared words,
                                                          # the memory block as miniagent writes it
    print(lab.describe(lab.task("verify-change").text))   # a labelled request: needed notes found / missed
    RetrievalApp(lab)                                     # ipywidgets: a request, k, select or retrieve

Everything comes from miniagent's own code (``Retriever``, the two strategies' text) and the
recall set's labels; nothing runs a model. ``describe`` is plain text, what nbval compares; the app
needs a kernel (JupyterLab or Binder).
"""
from __future__ import annotations

from dataclasses import dataclass

from miniagent.retriever import Retriever
from miniagent.variants.select_memory import TOP_K

from prefixlab.cache.tokenizer import load_tokenizer

from ..figures import recall
from prefixlab.presenting.lab.app import WidgetApp, panel

STRATEGY_LABELS = {"select": "挑选:进 system prompt 的记忆块", "retrieve": "检索:接在这次的 user 消息后面"}
MAX_K = 15
OWN = "(自己写)"  # the first choice of 标注过的: the request box holds the learner's own text


@dataclass(frozen=True)
class Pick:
    note: str                 # note id
    score: float              # BM25 score
    shared: tuple[str, ...]   # word stems the note shares with the request


class RetrievalLab:
    """The notes T14 saves, the recall set's requests, and miniagent's BM25 retriever over them."""

    def __init__(self, path=recall.RECALL_SET):
        self.notes, self.tasks = recall.load_recall_set(path)
        self.ids = list(self.notes)
        self.retriever = Retriever(list(self.notes.values()))
        self._tokenizer = None

    def task(self, task_id: str) -> recall.Task:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(f"no request {task_id!r} in the recall set; ids: {', '.join(t.id for t in self.tasks)}")

    def words(self, text: str) -> list[str]:
        """The word stems of ``text`` that some note also has (what BM25 can match on), in order."""
        out = self.retriever.tokenizer.tokenize([text], update_vocab=False, return_as="string", show_progress=False)
        return list(dict.fromkeys(w for w in out[0] if w))

    def picks(self, query: str, k: int = TOP_K) -> list[Pick]:
        """The notes miniagent would carry for ``query`` (at most ``k``, best first), with why."""
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
        scores = self.retriever.scores(query)
        asked = set(self.words(query))
        return [Pick(self.ids[i], scores[i], tuple(w for w in self.words(self.notes[self.ids[i]]) if w in asked))
                for i in self.retriever.search(query, k)]

    def tokens(self, text: str) -> int:
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer()
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids) if text else 0

    def describe(self, query: str, k: int = TOP_K, strategy: str = "select") -> str:
        if strategy not in STRATEGY_LABELS:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGY_LABELS)}, got {strategy!r}")
        query = " ".join(query.split())
        if not query:
            return "先写一句请求。"
        picks = self.picks(query, k)
        ids, text = recall.carried(strategy, self.notes, query, k)
        lines = [f"请求:{query}",
                 f"能和笔记对上的词(词干):{'、'.join(self.words(query)) or '(一个也没有)'}",
                 f"k = {k},挑中 {len(picks)} 条:"]
        lines += [f"  {p.note}(得分 {p.score:.2f},共同的词:{'、'.join(p.shared)})" for p in picks]
        if not picks:
            lines.append("  (没有一条笔记和请求有共同的词)")
        lines.append(f"{STRATEGY_LABELS[strategy]}:{self.tokens(text):,} 个 token(整份记忆是 "
                     f"{self.tokens(recall.carried('frozen', self.notes, query, None)[1]):,} 个)")
        labelled = next((t for t in self.tasks if t.text == query), None)
        if labelled is not None:
            found = [n for n in labelled.needs if n in ids]
            missed = [n for n in labelled.needs if n not in ids]
            lines.append(f"召回测试里标注了这个请求需要:{'、'.join(labelled.needs)};带上 {len(found)} 条"
                         + (f",没带上:{'、'.join(missed)}" if missed else ",一条不缺"))
            asked = set(self.words(query))
            for n in missed:
                shared = [w for w in self.words(self.notes[n]) if w in asked]
                lines.append(f"  {n} 和请求共同的词:{'、'.join(shared) or '一个也没有,k 再大也挑不到它'}")
        lines += ["", "miniagent 放进请求的文字:", text.strip("\n") or "(没有)"]
        return "\n".join(lines)


class RetrievalApp(WidgetApp):
    TITLE = "记忆检索试验台"

    def __init__(self, lab: RetrievalLab | None = None):
        import ipywidgets as w

        self.lab = lab or RetrievalLab()
        style, wide = {"description_width": "5em"}, w.Layout(width="100%")
        first = self.lab.tasks[0].text
        # Each labelled request on its own line of a list box: long requests wrap instead of being cut.
        self.preset = w.Select(description="标注过的", style=style, layout=w.Layout(width="100%", height="9em"),
                               options=[(OWN, "")] + [(f"{t.id}:{t.text}", t.text) for t in self.lab.tasks],
                               value=first)
        self.query = w.Textarea(description="请求", style=style, layout=w.Layout(width="100%", max_width="60em", height="4em"),
                                value=first, placeholder="写一句请求,例如 Add Kelvin support")
        self.k = w.IntSlider(description="k", min=1, max=MAX_K, value=TOP_K, style=style, continuous_update=False)
        self.strategy = w.ToggleButtons(description="做法", style={"description_width": "3em"},
                                        options=[(label.split(":")[0], key) for key, label in STRATEGY_LABELS.items()],
                                        tooltips=[label for label in STRATEGY_LABELS.values()])
        self.panel = w.HTML()
        self._syncing = False
        self.preset.observe(lambda _: self._preset(), "value")
        self.query.observe(lambda _: self._typed(), "value")
        for control in (self.k, self.strategy):
            control.observe(lambda _: self._show(), "value")
        self.widget = w.VBox([self.preset, self.query, w.HBox([self.k, self.strategy]), self.panel], layout=wide)
        self._show()

    def _preset(self):
        """A labelled request fills the box; "(自己写)" empties it for the learner's own."""
        if self._syncing:
            return
        self._syncing = True
        try:
            self.query.value = self.preset.value
        finally:
            self._syncing = False
        self._show()

    def _typed(self):
        """Typing in the box: the list follows (the labelled request it now equals, else "(自己写)")."""
        if self._syncing:
            return
        labelled = " ".join(self.query.value.split())
        self._syncing = True
        try:
            self.preset.value = next((t.text for t in self.lab.tasks if t.text == labelled), "")
        finally:
            self._syncing = False
        self._show()

    def _show(self):
        self.panel.value = panel(self.lab.describe(self.query.value, self.k.value, self.strategy.value))
