"""A7·4's parallel half: two children at once on ``-np 2``, and one slot's share of the context.

Everything is computed from the recordings ``a7-4-parallel-two-slots`` and ``a7-4-parallel-one-slot``:
the measured ``prompt_tokens`` / ``cached_tokens``, the server's own times and slots of every request
(``order[].launched`` / ``done`` / ``slot``, from its log), the per-slot ``n_ctx`` the server reported
(``GET /slots``), and the calculator's prediction of every ``cached_tokens``
(``prefixlab.cache.calculator``, the llama.cpp rule configured from the recording).

    two, one = load_parallel()
    numbers(two, one)          # every number the page glues, in one dict
    slot_context(two)          # -c, slots, n_ctx per slot as the server reports it
    long_child(two, one)       # the same child: refused on two slots, run to its end on one
    parallel_effect(two, "parallel"), parallel_effect(two, "sequential")
    agreement(two), agreement(one)
    timeline_figure(two)       # the requests on the server's clock, slot by slot
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from prefixlab.cache import calculator
from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import Recording, load

TWO_SLOTS = "a7-4-parallel-two-slots"
ONE_SLOT = "a7-4-parallel-one-slot"
VARIANT_LABELS = {"parallel": "同时派出,每次只生成 1 个 token", "sequential": "一个接一个,每次 1 个 token",
                  "parallel-replies": "同时派出,每次最多生成 32 个 token",
                  "sequential-replies": "一个接一个,每次最多 32 个 token", "long": "一个读十个文件的子 agent"}
COLORS = {"parent": "#1f77b4", "child1": "#ff7f0e", "child2": "#2ca02c"}
ROLE_LABELS = {"parent": "父 agent", "child1": "子 agent 1", "child2": "子 agent 2"}


def load_parallel(root=RECORDINGS) -> tuple[Recording, Recording]:
    """The two recordings: (two slots, one slot)."""
    return load(root / TWO_SLOTS), load(root / ONE_SLOT)


@dataclass(frozen=True)
class Request:
    """One request of a variant, as the server ran it, with the calculator's prediction."""
    order: int            # 1, 2, ... in the order the server launched the variant's requests
    session: str
    role: str             # parent | child1 | child2
    round: int
    prompt_tokens: int
    measured: int | None  # cached_tokens the server reported (None: refused)
    predicted: int        # the calculator's cached_tokens
    refused: str | None
    slot: int | None
    launched: float | None  # server clock, seconds
    done: float | None
    ok: bool | None


def role_of(session: str) -> str:
    return session.rsplit("-", 1)[1] if "-child" in session else "parent"


def requests(recording: Recording, variant: str) -> list[Request]:
    sessions = sorted(s["id"] for s in recording.manifest["sessions"] if s.get("variant") == variant)
    rows = {r.seq: r for r in calculator.analyze(recording, sessions=sessions)}
    items = recording.manifest["order"]
    out = []
    for call in recording.calls:
        if call.session not in sessions:
            continue
        row, item = rows[call.seq], items[call.seq]
        out.append(Request(len(out) + 1, call.session, role_of(call.session), call.round, call.prompt_tokens,
                           call.cached_tokens, row.read, call.refused, item.get("slot"), item.get("launched"),
                           item.get("done"), row.ok))
    return out


def agreement(recording: Recording) -> dict:
    """How many requests the calculator predicts exactly (a refusal counts when it predicts the refusal)."""
    rows = calculator.analyze(recording)
    return {"requests": len(rows), "exact": sum(bool(r.ok) for r in rows),
            "refused": sum(r.refused is not None for r in rows)}


def slot_context(recording: Recording) -> dict:
    """``-c`` as given, the number of slots, and each slot's context as the server reported it."""
    server = recording.provenance["server"]
    flags = [str(f) for f in server["flags"]]
    c = int(flags[len(flags) - 1 - flags[::-1].index("-c") + 1])
    slots = server["slots"]
    return {"c": c, "slots": len(slots), "n_ctx_slot": slots[0]["n_ctx"],
            "all_equal": len({s["n_ctx"] for s in slots}) == 1, "props_n_ctx": server["props"]["n_ctx"]}


@dataclass(frozen=True)
class LongChild:
    requests_two: int      # requests the child sent on two slots (the last one refused)
    refused_tokens: int    # the refused request's prompt_tokens
    refused_n_ctx: int     # the context the server said it had for it
    last_ok_tokens: int    # the longest request it accepted on two slots
    requests_one: int      # requests the child sent on one slot (all answered)
    longest_one: int       # its longest request there
    status_two: str        # the parent's child entry: failed
    status_one: str        # done


def _child_status(recording: Recording, parent: str) -> str:
    session = recording.files[recording.session_info(parent)["file"]]
    return [e for e in session.entries if e.get("type") == "child"][0]["status"]


def long_child(two: Recording, one: Recording) -> LongChild:
    r2 = [r for r in requests(two, "long") if r.role != "parent"]
    r1 = [r for r in requests(one, "long") if r.role != "parent"]
    refused = [r for r in r2 if r.refused]
    call = next(c for c in two.calls if c.session == refused[0].session and c.refused)
    return LongChild(len(r2), refused[0].prompt_tokens, call.error["body"]["error"]["n_ctx"],
                     max(r.prompt_tokens for r in r2 if not r.refused), len(r1), max(r.prompt_tokens for r in r1),
                     _child_status(two, "long"), _child_status(one, "long"))


@dataclass(frozen=True)
class ParallelEffect:
    variant: str
    children_seconds: float    # server clock: first child launch to last child release
    overlap: int               # child requests launched while the other child's request was running
    child_slots: dict          # child -> the slots its requests ran on
    child_first: dict          # child -> (prompt_tokens, cached_tokens) of its first request
    child_later_min: dict      # child -> the smallest cached share (cached/prompt) of its later requests
    parent_before: Request     # the parent's request that spawned the children
    parent_back: Request       # its first request after both reported
    rows: tuple[Request, ...]


def parallel_effect(recording: Recording, variant: str) -> ParallelEffect:
    rows = requests(recording, variant)
    children = [r for r in rows if r.role != "parent"]
    parents = [r for r in rows if r.role == "parent"]
    overlap = sum(any(o.role != r.role and o.launched < r.launched < o.done for o in children) for r in children)
    slots, first, later = {}, {}, {}
    for role in ("child1", "child2"):
        mine = [r for r in children if r.role == role]
        slots[role] = sorted({r.slot for r in mine})
        first[role] = (mine[0].prompt_tokens, mine[0].measured)
        later[role] = min(r.measured / r.prompt_tokens for r in mine[1:])
    back = next(r for r in parents if r.launched > max(c.done for c in children))
    before = [r for r in parents if r.launched < min(c.launched for c in children)][-1]
    span = max(c.done for c in children) - min(c.launched for c in children)
    return ParallelEffect(variant, round(span, 3), overlap, slots, first, later, before, back, tuple(rows))


def time_ratio(recording: Recording) -> float:
    """The parallel children's time on the server divided by the sequential children's (> 1: slower)."""
    return parallel_effect(recording, "parallel").children_seconds / parallel_effect(recording, "sequential").children_seconds


def recomputed(recording: Recording, variant: str) -> dict:
    """The children's requests of a variant: prompt tokens, cached tokens, recomputed (prompt - cached)."""
    rows = [r for r in requests(recording, variant) if r.role != "parent" and r.measured is not None]
    prompt, cached = sum(r.prompt_tokens for r in rows), sum(r.measured for r in rows)
    return {"requests": len(rows), "prompt": prompt, "cached": cached, "recomputed": prompt - cached}


def timeline_figure(recording: Recording) -> go.Figure:
    """The requests on the server's clock, one panel per variant (parallel with one-token replies, parallel
    and sequential with longer replies), one row per slot, one bar per request from launch to release."""
    variants = ("parallel", "parallel-replies", "sequential-replies")
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=[VARIANT_LABELS[v] for v in variants])
    n_slots = len(recording.provenance["server"]["slots"])
    shown = set()
    for row_no, variant in enumerate(variants, start=1):
        rows = requests(recording, variant)
        start = min(r.launched for r in rows if r.role != "parent")
        for role in ("parent", "child1", "child2"):
            mine = [r for r in rows if r.role == role]
            fig.add_bar(y=[f"槽位 {r.slot}" for r in mine], x=[r.done - r.launched for r in mine],
                        base=[r.launched - start for r in mine], orientation="h", name=ROLE_LABELS[role],
                        marker_color=COLORS[role], legendgroup=role, showlegend=role not in shown,
                        customdata=[[r.round, r.prompt_tokens] for r in mine],
                        hovertemplate=f"{ROLE_LABELS[role]} 第 %{{customdata[0]}} 轮<br>prompt %{{customdata[1]:,}} 个 token"
                                      "<br>从 %{base:.2f} s 起,算了 %{x:.2f} s<extra></extra>",
                        row=row_no, col=1)
            shown.add(role)
        fig.update_yaxes(categoryorder="array", categoryarray=[f"槽位 {i}" for i in range(n_slots)], row=row_no, col=1)
    fig.update_xaxes(title_text="服务器时钟上的秒数(从第一个子 agent 的请求开始算)", row=3, col=1)
    fig.update_layout(height=520, barmode="overlay", margin=dict(l=60, r=10, t=40, b=40),
                      legend=dict(orientation="h", y=-0.2),
                      annotations=list(fig.layout.annotations) + [dict(
                          text=f"来源:data/recordings/{recording.path.name}(服务器日志里的启动与放出时间)",
                          xref="paper", yref="paper", x=0, y=-0.3, showarrow=False, font=dict(size=10))])
    return fig


def numbers(two: Recording, one: Recording) -> dict:
    """Every number A7·4's parallel half glues, by name. Exercise answers are left out (the second
    parallel child's first cached_tokens is exercise 2 of chapters/a7/exercises/a7_4_parallel.py)."""
    ctx2, ctx1 = slot_context(two), slot_context(one)
    lc = long_child(two, one)
    par, seq = parallel_effect(two, "parallel"), parallel_effect(two, "sequential")
    rp, rs = recomputed(two, "parallel"), recomputed(two, "sequential")
    ok2, ok1 = agreement(two), agreement(one)
    parr, seqr = parallel_effect(two, "parallel-replies"), parallel_effect(two, "sequential-replies")
    rpr, rsr = recomputed(two, "parallel-replies"), recomputed(two, "sequential-replies")
    return {
        "a74p_reply_tokens": next(s["child_max_tokens"] for s in two.manifest["sessions"] if "child_max_tokens" in s),
        "a74p_parr_seconds": parr.children_seconds, "a74p_seqr_seconds": seqr.children_seconds,
        "a74p_replies_time_ratio": round(parr.children_seconds / seqr.children_seconds, 2),
        "a74p_parr_overlap": parr.overlap,
        "a74p_parr_slots_used": len(set(parr.child_slots["child1"]) | set(parr.child_slots["child2"])),
        "a74p_parr_recomputed": rpr["recomputed"], "a74p_seqr_recomputed": rsr["recomputed"],
        "a74p_parr_child2_first_prompt": parr.child_first["child2"][0],
        "a74p_seqr_child2_first_cached": seqr.child_first["child2"][1],
        "a74p_parr_parent_back_cached": parr.parent_back.measured, "a74p_parr_parent_back_slot": parr.parent_back.slot,
            "a74p_without_times_wrong": without_times_wrong(two),
        "a74p_c": ctx2["c"], "a74p_slots": ctx2["slots"], "a74p_slot_ctx": ctx2["n_ctx_slot"],
        "a74p_one_slot_ctx": ctx1["n_ctx_slot"],
        "a74p_long_requests_two": lc.requests_two, "a74p_long_refused_tokens": lc.refused_tokens,
        "a74p_long_refused_ctx": lc.refused_n_ctx, "a74p_long_last_ok": lc.last_ok_tokens,
        "a74p_long_requests_one": lc.requests_one, "a74p_long_longest_one": lc.longest_one,
        "a74p_par_seconds": par.children_seconds, "a74p_seq_seconds": seq.children_seconds,
        "a74p_time_ratio": round(par.children_seconds / seq.children_seconds, 2),
        "a74p_par_overlap": par.overlap,
        "a74p_par_slots_used": len(set(par.child_slots["child1"]) | set(par.child_slots["child2"])),
        "a74p_par_recomputed": rp["recomputed"], "a74p_seq_recomputed": rs["recomputed"],
        "a74p_par_cached": rp["cached"], "a74p_seq_cached": rs["cached"],
        "a74p_par_later_share": round(100 * min(par.child_later_min.values())),
        "a74p_seq_later_share": round(100 * min(seq.child_later_min.values())),
        "a74p_parent_before": par.parent_before.prompt_tokens, "a74p_parent_back_prompt": par.parent_back.prompt_tokens,
        "a74p_parent_back_cached": par.parent_back.measured, "a74p_parent_back_slot": par.parent_back.slot,
        "a74p_requests": ok2["requests"] + ok1["requests"], "a74p_exact": ok2["exact"] + ok1["exact"],
    }


def without_times_wrong(recording: Recording) -> int:
    """Requests the llama.cpp rule gets wrong when it is not told the server's launch and release times
    (every request treated as done before the next one starts)."""
    import dataclasses

    blind = dataclasses.replace(recording, calls=[dataclasses.replace(c, launched=None, done=None)
                                                  for c in recording.calls])
    replay = dataclasses.replace(calculator.prepare(recording), recording=blind)  # the same tokens, no times
    return sum(not r.ok for r in calculator.analyze(replay))
