"""A5·3's numbers and figure: does the rule survive one, two, three compactions?

The recording ``a5-3-layers-qwen2.5-coder-0.5b-llamacpp`` holds one session per variant and seed;
each session compacts three times and the live model writes every summary. For each compaction
we ask two things:

- does the summary the model wrote carry the rule (``rule_in``: the rule word for word, or a
  recognisable paraphrase in Chinese or English; the patterns are below and the page shows them);
- does the rule reach the model after that compaction at all: anywhere in what the next request
  would hold (system prompt, summary message, kept rounds). For ``free`` and ``structured`` that is
  the summary alone; ``keep-user`` also keeps the user's messages word for word, ``agents-md`` has
  the rule in the system prompt.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import plotly.graph_objects as go

from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import Recording, load
from miniagent.session import Session

NAME = "a5-3-layers-qwen2.5-coder-0.5b-llamacpp"
DEPTHS = (1, 2, 3)
# variant -> label on the page
LABELS = {"free": "自由摘要", "structured": "分节交接", "keep-user": "自由摘要 + 用户消息原文",
          "agents-md": "自由摘要,规矩在 AGENTS.md"}
PROMPT_VARIANTS = ("free", "structured")    # the naive prompt and the structured one
FIX_VARIANTS = ("keep-user", "agents-md")   # the fixes that do not trust the summary

# A paraphrase: a "not" close before "change/edit" close before "test" (in one clause: no comma or
# semicolon between them), in Chinese or in English.
PARAPHRASES = (
    re.compile(r"(不许|不要|不能|不得|不准|不可|禁止|别|勿|不应|不允许)[^。,;,;\n]{0,6}(改|修改|改动|动|编辑|更改)[^。,;,;\n]{0,8}测试"),
    re.compile(r"测试(文件)?[^。,;,;\n]{0,6}(不许|不要|不能|不得|不准|不可|禁止|别|不应|不允许)[^。,;,;\n]{0,4}(改|修改|改动|动|编辑|更改)"),
    re.compile(r"\b(not|never|no|don't|do not|must not|mustn't|cannot|can't|without|avoid)\b[^.,;\n]{0,40}?"
               r"\b(modify|modifying|modified|change|changing|changed|edit|editing|edited|touch|touching|alter|"
               r"altering|update|updating)\b[^.,;\n]{0,30}?\btests?\b", re.IGNORECASE),
    re.compile(r"\btest(s| files?)\b[^.,;\n]{0,30}?\b(must not|mustn't|should not|shouldn't|cannot|can't|may not|"
               r"are not to|not to) be\b[^.,;\n]{0,15}?\b(modified|changed|edited|touched|altered)\b", re.IGNORECASE),
)


# What the task is about: fixing negative temperatures. A summary that names it still carries the task.
TASK_MARKERS = ("negative", "负")


def mentions_task(text: str) -> bool:
    """The summary still names what the task is about (TASK_MARKERS, case aside)."""
    return any(marker in text.lower() for marker in TASK_MARKERS)


def rule_in(text: str, rule: str) -> str | None:
    """``"verbatim"`` if ``text`` holds ``rule`` word for word, ``"paraphrase"`` if it says it in other
    words (PARAPHRASES), else None."""
    if rule in text:
        return "verbatim"
    if any(p.search(text) for p in PARAPHRASES):
        return "paraphrase"
    return None


def recording() -> Recording:
    return load(RECORDINGS / NAME)


@dataclass(frozen=True)
class Layer:
    session: str
    variant: str
    seed: int
    depth: int              # the n-th compaction of the session
    summary: str            # what the model wrote
    in_summary: str | None  # rule_in(summary)
    reaches_model: bool     # the rule is somewhere in what the next request holds
    completion_tokens: int
    truncated: bool         # the model was stopped at max_tokens
    task: bool              # mentions_task(summary)


def layers(rec: Recording) -> list[Layer]:
    """One row per compaction of every session, in recording order."""
    rule, out = rec.manifest["rule"], []
    for info in rec.manifest["sessions"]:
        session = Session.open(rec.path / info["file"])
        depth = 0
        for entry in session.entries:
            if entry["type"] != "compaction":
                continue
            depth += 1
            choice = entry["response"]["choices"][0]
            text = choice["message"].get("content") or ""
            seen = "\n".join(m["content"] for m in session.messages(entry["id"]) if isinstance(m.get("content"), str))
            out.append(Layer(info["id"], info["variant"], info["seed"], depth, text, rule_in(text, rule),
                             rule in seen or rule_in(seen, rule) is not None,
                             entry["response"]["usage"]["completion_tokens"], choice.get("finish_reason") == "length",
                             mentions_task(text)))
    return out


@dataclass(frozen=True)
class Share:
    variant: str
    depth: int
    runs: int
    in_summary: int     # summaries carrying the rule (word for word or paraphrased)
    verbatim: int       # ... word for word
    reaches_model: int  # runs in which the rule reaches the model after this compaction
    task: int           # summaries that still name what the task is about


def shares(rows: list[Layer]) -> list[Share]:
    out = []
    for variant in LABELS:
        for depth in DEPTHS:
            cell = [r for r in rows if r.variant == variant and r.depth == depth]
            if cell:
                out.append(Share(variant, depth, len(cell), sum(r.in_summary is not None for r in cell),
                                 sum(r.in_summary == "verbatim" for r in cell), sum(r.reaches_model for r in cell),
                                 sum(r.task for r in cell)))
    return out


def share(cells: list[Share], variant: str, depth: int) -> Share:
    return next(c for c in cells if c.variant == variant and c.depth == depth)


def runs_per_variant(rec: Recording) -> dict[str, int]:
    counts = {v: 0 for v in LABELS}
    for info in rec.manifest["sessions"]:
        counts[info["variant"]] += 1
    return counts


def layers_figure(cells: list[Share]) -> go.Figure:
    """Share of runs in which the rule still reaches the model after 1, 2, 3 compactions, per variant."""
    colours = {"free": "#d1495b", "structured": "#edae49", "keep-user": "#00798c", "agents-md": "#30638e"}
    dashes = {"free": "solid", "structured": "solid", "keep-user": "dot", "agents-md": "dash"}
    fig = go.Figure()
    for variant, label in LABELS.items():
        row = [c for c in cells if c.variant == variant]
        if not row:
            continue
        fig.add_scatter(x=[f"第 {c.depth} 次压缩后" for c in row], y=[100 * c.reaches_model / c.runs for c in row],
                        name=label, mode="lines+markers", line=dict(color=colours[variant], dash=dashes[variant]),
                        customdata=[[c.reaches_model, c.runs] for c in row],
                        hovertemplate=f"{label}<br>%{{x}}:%{{customdata[0]}} / %{{customdata[1]}} 次运行"
                                      "(%{y:.0f}%)<extra></extra>")
    fig.update_layout(height=420, margin=dict(t=30, b=110), yaxis=dict(title="规矩还在的运行(%)", range=[-5, 105]),
                      legend=dict(orientation="h", y=-0.25, x=0))
    return fig


def note(rec: Recording):
    """The 口径 note of the figure: the live model writes the summaries, its template is inside its GGUF."""
    from chapters.a5.figures.provenance import server_flags
    from prefixlab.presenting.book import provenance_note

    prov = rec.provenance
    return provenance_note(
        recording=f"data/recordings/{NAME}({rec.manifest['experiment']},助手的工具调用来自脚本;摘要由 live 模型采样写出)",
        model=f"{prov['model']['name']},sha256 {prov['model']['sha256'][:12]}…",
        server=f"{prov['server']['package']} 的 llama-server,参数 {server_flags(rec)}",
        tokenizer=prov["tokenizer"]["path"],
        template=f"模型 GGUF 里自带的聊天模板(sha256 {prov['chat_template']['sha256'][:12]}…)",
        date=rec.manifest["created"][:10],
        rule="“规矩还在”按 chapters/a5/figures/layers.py 的判断:逐字,或可辨认的改写")
