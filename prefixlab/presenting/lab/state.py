"""The calculator lab's state: controls in, plain data out (no widgets, no HTML).

``CalculatorLab`` opens a recording, checks every change of the controls and computes a
``LabState`` from the calculator (``prefixlab.cache.calculator`` / ``counterfactual``); nothing is
typed in here. Bad input never raises into the notebook: a path that is not a recording, a
recording that fails validation, or a setting a rule refuses leaves the previous state in place
and puts the message in ``state.error``. Only the constructor raises (ValueError with the same
message) when its first recording cannot be opened: there is nothing to fall back on.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from prefixlab.cache import calculator, counterfactual, pricing, rules
from prefixlab.cache.rules.anthropic import minimum
from prefixlab.paths import RECORDINGS, REPO_ROOT
from prefixlab.recording.format import find_recordings

from ..book.provenance import ProvenanceNote, provenance_note
from ..scenarios import rule_config_of, scenario_rows
from ..labels import GROUP_LABELS, KIND_LABELS
from ..report import group_costs, recorded_rule
from . import render

# Which shipped recording the calculator opens first is data, not code (data/recordings/DEFAULT).
DEFAULT_RECORDING = RECORDINGS / (RECORDINGS / "DEFAULT").read_text(encoding="utf-8").strip()
DEFAULT_MODEL = "claude-sonnet-4-6"  # minimum 1,024 tokens: our prompts (1-2.5k tokens) can be cached
PRICE_RULE = "anthropic"  # the lab's prices are Claude's, so costs are always computed under Claude's cache
TERM_LABELS = {
    "uncached": "不缓存的输入",
    "write_5m": "写入缓存(5 分钟)",
    "write_1h": "写入缓存(1 小时)",
    "read": "从缓存读",
    "output": "输出",
}


@dataclass(frozen=True)
class Controls:
    """Every control of the lab; ``update(**changes)`` replaces some of them."""

    recording: str             # as shown: relative to the repo root when inside it
    session: str
    rule: str
    model: str                 # Claude model: the prices, and the minimum length of rules that take a model
    breakpoint: str | None     # explicit cache_control on this block (rules that take breakpoints)
    k: int                     # 0 = the session as recorded; k >= 1 = refresh right after round k
    round: int | None          # the round whose break and cost are shown; None = pick one


@dataclass(frozen=True)
class LabState:
    controls: Controls
    recordings: list[str]              # shipped recordings (the picker's choices)
    sessions: list[tuple[str, str]]    # (label, id)
    rules: list[str]
    models: list[str]
    min_tokens: str                    # the model's minimum cacheable length, as text
    breakpoints: list[str]             # blocks an explicit breakpoint can go on
    k_max: int                         # 0: no counterfactual for this session (k_note says why)
    k_note: str
    rounds: list[int]
    scenario: str                      # one line: what the rows are
    rows: list[dict]                   # calculator.as_dicts of the rows
    comparable: bool                   # the rule is the recorded server's: prediction vs measurement
    summary: str
    break_info: dict
    cost: dict | None
    comparison: dict | None
    provenance: ProvenanceNote
    readings: list[dict] = field(default_factory=list)  # the session under Claude's cache: as recorded vs next day
    notes: list[str] = field(default_factory=list)
    breakpoint_effect: str = ""       # what the explicit breakpoint changed against automatic caching
    k_changed: str = ""               # why k is not what it was (another session allows less)
    error: str | None = None


def resolve(text: str | Path) -> tuple[Path, str]:
    """A typed path -> (absolute path, how to show it). Relative paths: the working folder, then the repo."""
    raw = str(text).strip()
    if not raw:
        raise ValueError("请输入录制目录的路径")
    path = Path(raw).expanduser()
    if not path.is_absolute():
        # a notebook runs in labs/, a learner types paths from the repo root: try both
        path = next((c for c in (Path.cwd() / path, REPO_ROOT / path) if c.exists()), REPO_ROOT / path)
    path = path.resolve()
    try:
        shown = path.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        shown = raw
    return path, shown


def shipped_recordings() -> list[str]:
    return [p.relative_to(REPO_ROOT).as_posix() for p in find_recordings()]


def session_label(info: dict) -> str:
    extra = f" k={info['k']}" if info.get("k") is not None else ""
    return (f"{info['id']}({GROUP_LABELS.get(info['group'], info['group'])} · 第 {info['day']} 天 · "
            f"{KIND_LABELS.get(info['kind'], info['kind'])}{extra})")


def takes(rule: str, choice: str) -> bool:
    """Whether the rule uses a course-wide choice ("model", "breakpoints"); False for an unknown rule."""
    return rule in rules.RULES and choice in rules.RULES[rule].TAKES


def rule_label(rule: str) -> str:
    return rules.RULES[rule].LABEL if rule in rules.RULES else rule


def rule_settings(rule: str, model: str, breakpoint: str | None) -> dict:
    """Settings for ``scenarios.scenario_rows``: the model and the breakpoint, where the rule takes them."""
    return rules.settings(rule, model, (breakpoint,) if breakpoint else ())


def recording_note(recording, shown: str | None = None, rule: str | None = None) -> ProvenanceNote:
    """The 口径 note, from the recording's own provenance (``shown``: the path to print)."""
    shown = shown or resolve(recording.path)[1]
    prov = recording.provenance
    server = prov["server"]
    if server["kind"] == "llama-server":
        flags = [str(f) for f in server.get("flags", [])]
        keep = [f"{flags[i]} {flags[i + 1]}" for i, f in enumerate(flags[:-1])
                if f in ("-c", "-np", "--cache-ram", "--cache-reuse")]
        server_text = f"{server.get('package', 'llama-server')} llama-server " + " ".join(keep)
    else:
        server_text = f"{server['kind']} 服务器 {server.get('url_host', '')}".strip()
    model = prov["model"]
    model_text = model["name"] + (f",sha256 {model['sha256'][:12]}…" if model.get("sha256") else "")
    fields = {"recording": f"{shown}({recording.manifest['experiment']},{recording.manifest['policy']})",
              "model": model_text, "server": server_text,
              "tokenizer": prov["tokenizer"].get("path") or prov["tokenizer"]["sha256"][:12],
              "template": prov["chat_template"].get("path") or prov["chat_template"]["sha256"][:12],
              "date": recording.manifest["created"][:10]}
    if rule:
        fields["rule"] = rule_label(rule)
    return provenance_note(**fields)


class CalculatorLab:
    """The calculator's controls and what they produce, as plain data (see the module docstring)."""

    def __init__(self, recording: str | Path = DEFAULT_RECORDING):
        self._replay = None
        self._rows: list = []   # calculator Rows of the state (for the text table)
        self._state: LabState | None = None
        self.open(recording)    # nothing to fall back on yet: a bad first recording raises

    @property
    def state(self) -> LabState:
        return self._state

    # -- controls --------------------------------------------------------------------------------

    def open(self, path: str | Path) -> LabState:
        """Open another recording; on any problem keep the current one and report the error."""
        try:
            resolved, shown = resolve(path)
        except ValueError as err:
            return self._fail(str(err))
        if problem := not_a_recording(resolved, shown):
            return self._fail(problem)
        try:
            replay = calculator.prepare(calculator.load_recording(resolved))
        except Exception as err:  # a learner's recording can be broken in any way: show it, never a traceback
            return self._fail(f"无法打开录制 {shown}:读入或校验时出错(原话:{str(err).replace(str(resolved), shown)})")
        rec = replay.recording
        rule = recorded_rule(rec) or (self._state.controls.rule if self._state else "llamacpp")
        model = self._state.controls.model if self._state else DEFAULT_MODEL
        session = counterfactual.history_session(rec) if any(
            s["kind"] == "main" for s in rec.manifest["sessions"]) else rec.manifest["sessions"][0]["id"]
        controls = Controls(shown, session, rule, model, None, 0, None)
        try:
            state, rows = self._compute(replay, controls)
        except (ValueError, LookupError, OSError) as err:
            return self._fail(f"录制 {shown} 能读入,但算不出结果:{err}")
        self._replay, self._state, self._rows = replay, state, rows
        return state

    def update(self, **changes) -> LabState:
        """Change some controls (names of ``Controls``); ``recording=`` opens another recording."""
        unknown = set(changes) - {f for f in Controls.__dataclass_fields__}
        if unknown:
            raise TypeError(f"unknown control(s) {', '.join(sorted(unknown))}; "
                            f"controls: {', '.join(Controls.__dataclass_fields__)}")
        if "recording" in changes:
            state = self.open(changes.pop("recording"))
            if state.error or not changes:
                return state
        old = self._state.controls
        new = replace(old, **changes)
        if "round" not in changes and (new.session != old.session or new.k != old.k):
            new = replace(new, round=None)  # another scenario: show its most telling round
        k_changed = ""
        known = {info["id"] for info in self._replay.recording.manifest["sessions"]}
        if new.session != old.session and "k" not in changes and new.session in known:
            # keep k where the new session allows it; otherwise the largest it allows, and say so
            k_max, _ = k_range(self._replay.recording, new.session)
            if new.k > k_max:
                k_changed = f"换到会话 {new.session} 后,k 从 {new.k} 改成了 {k_max}(这个会话的 k 最多到 {k_max})"
                new = replace(new, k=k_max)
        if not takes(new.rule, "breakpoints"):
            new = replace(new, breakpoint=None)
        try:
            self._check(new)
            if new.session != old.session and new.breakpoint not in breakpoint_blocks(self._replay, new.session):
                new = replace(new, breakpoint=None)
            state, rows = self._compute(self._replay, new)
        except (ValueError, LookupError, OSError) as err:
            return self._fail(str(err))
        self._state, self._rows = replace(state, k_changed=k_changed), rows
        return self._state

    def _fail(self, message: str) -> LabState:
        """Keep the last good state, with the message; raise if there is none yet."""
        if self._state is None:
            raise ValueError(message)
        self._state = replace(self._state, error=message)
        return self._state

    def _check(self, c: Controls) -> None:
        rec = self._replay.recording
        sessions = [s["id"] for s in rec.manifest["sessions"]]
        if c.session not in sessions:
            raise ValueError(f"没有会话 {c.session!r};这份录制的会话:{', '.join(sessions)}")
        if c.rule not in calculator.rule_names():
            raise ValueError(f"没有缓存规则 {c.rule!r};可选:{', '.join(calculator.rule_names())}")
        if c.model not in pricing.known_models("anthropic"):
            raise ValueError(f"价格表里没有模型 {c.model!r};可选:{', '.join(pricing.known_models('anthropic'))}")
        k_max, note = k_range(rec, c.session)
        if not isinstance(c.k, int) or not 0 <= c.k <= k_max:
            raise ValueError(f"k={c.k!r} 超出范围 0..{k_max}" + (f"({note})" if note else ""))

    # -- computing a state -----------------------------------------------------------------------

    def _compute(self, replay, c: Controls) -> tuple[LabState, list]:
        rec = replay.recording
        settings = rule_settings(c.rule, c.model, c.breakpoint)
        rows = scenario_rows(replay, c.rule, settings, c.k, c.session)
        if not rows:
            raise ValueError(f"会话 {c.session} 没有请求")
        rounds = [r.round for r in rows]
        c = replace(c, round=c.round if c.round in rounds else auto_round(rows, c.k))
        row = rows[rounds.index(c.round)]
        comparable = recorded_rule(rec) in (None, c.rule)
        k_max, k_note = k_range(rec, c.session)
        # Costs are Claude prices, so they are computed under Claude's cache rule, whatever rule is shown.
        price_settings = rule_settings(PRICE_RULE, c.model, c.breakpoint)
        priced = rows if c.rule == PRICE_RULE else scenario_rows(replay, PRICE_RULE, price_settings, c.k, c.session)
        tokens, table = minimum(c.model)
        min_text = f"最短可缓存 {tokens:,} token(文档 {table})"
        if not takes(c.rule, "model"):
            min_text += ",只用于 Anthropic 规则"
        state = LabState(
            controls=c,
            recordings=shipped_recordings(),
            sessions=[(session_label(s), s["id"]) for s in rec.manifest["sessions"]],
            rules=calculator.rule_names(),
            models=pricing.known_models("anthropic"),
            min_tokens=min_text,
            breakpoints=breakpoint_blocks(replay, c.session),
            k_max=k_max, k_note=k_note,
            rounds=rounds,
            scenario=scenario_text(c),
            rows=calculator.as_dicts(rows),
            comparable=comparable,
            summary=summary_text(rows, c.rule, comparable, rec),
            break_info=break_info(row, comparable),
            cost=cost_of(priced[rounds.index(c.round)], c.model),
            comparison=self._comparison(replay, c, price_settings, priced),
            provenance=recording_note(rec, c.recording, c.rule),
            notes=conversion_notes(rec, c),
            readings=day_readings(replay, c, price_settings),
            breakpoint_effect=breakpoint_effect(replay, c, rows),
        )
        return state, rows

    def _comparison(self, replay, c: Controls, settings: dict, rows) -> dict | None:
        """Refresh vs no refresh, priced with the same table: the counterfactual against the recorded
        history (k >= 1), or the two recorded groups' main sessions (k = 0)."""
        if c.k:
            # The counterfactual runs on an empty cache (a restarted server), so the fair baseline is
            # the same history alone on an empty cache: the two differ only in the refresh.
            rec = replay.recording
            history = [i for i, call in enumerate(rec.calls) if call.session == c.session]
            config = calculator.rule_config(rec, PRICE_RULE, **rule_config_of(settings))
            baseline = calculator.predict_indices(replay, history, PRICE_RULE, config)
            result = pricing.refresh_vs_no_refresh([r.prediction for r in rows], baseline, c.model)
            labels = (f"第 {c.k} 轮写入后立即刷新", "不刷新(同一段历史,同样从空缓存开始)")
        else:
            all_rows = calculator.analyze(replay, PRICE_RULE, None, **rule_config_of(settings))
            result = group_costs(replay.recording, all_rows, c.model)
            if result is None:
                return None
            labels = (f"{GROUP_LABELS['refresh']}(全部主会话)", f"{GROUP_LABELS['frozen']}(全部主会话)")
        return {"refresh": labels[0], "no_refresh": labels[1], "refresh_usd": result.refresh.total,
                "no_refresh_usd": result.no_refresh.total,
                "ratio": result.ratio if result.no_refresh.total else None,
                "by_term": result.by_term()}

    # -- text ------------------------------------------------------------------------------------

    def report(self) -> str:
        """The state as plain text: what nbval compares (the figure itself is not compared)."""
        return render.report_text(self._state, self._rows)


def k_range(recording, session: str) -> tuple[int, str]:
    """Largest k of the counterfactual slider for this session, and why it is 0 when it is."""
    info = recording.session_info(session)
    if info["kind"] != "main":
        return 0, f"反事实只能从主会话构建;{session} 是{KIND_LABELS.get(info['kind'], info['kind'])}"
    try:
        counterfactual.note_system(recording, session)
        ks = counterfactual.k_values(recording, session)
    except counterfactual.CounterfactualError as err:
        return 0, f"{session} 没有反事实可算:{counterfactual_reason(err)}"
    return (ks.stop - 1 if len(ks) else 0), ""


def auto_round(rows, k: int) -> int:
    """The round to show first: the one right after the refresh, else the one that recomputes most."""
    rounds = [r.round for r in rows]
    if k and k + 1 in rounds:
        return k + 1
    later = rows[1:] or rows
    return max(later, key=lambda r: (r.fresh, -r.round)).round


def breakpoint_blocks(replay, session: str) -> list[str]:
    """Block names an explicit breakpoint can go on: those of the session's first request (they
    are in every later request too), in the order the Anthropic API sees them."""
    first = next(i for i, c in enumerate(replay.recording.calls) if c.session == session)
    blocks = replay.attributions[first].rule_blocks(api=True)
    order = {"tools": 0, "system": 1, "message": 2}
    return [b.name for b in sorted(blocks, key=lambda b: order[b.kind]) if b.end > b.start]


def scenario_text(c: Controls) -> str:
    rule = rule_label(c.rule)
    if takes(c.rule, "model"):
        rule += f" · {c.model}"
    if takes(c.rule, "breakpoints"):
        rule += f" · 显式断点在 {c.breakpoint}" if c.breakpoint else " · 自动缓存"
    if c.k:
        return f"{c.session} 的历史,假设第 {c.k} 轮写入后立即刷新 system prompt(空缓存上重放);规则 {rule}"
    return f"{c.session},按录制原样(与同一次服务器运行里的其他会话共用缓存);规则 {rule}"


def summary_text(rows, rule: str, comparable: bool, recording) -> str:
    s = calculator.summarize(rows)
    head = f"{s.requests} 个请求,规则 {rule_label(rule)}"
    if not comparable:
        return (f"{head}:实测值来自 {recording.provenance['server']['kind']} 服务器,不是这条规则的缓存,"
                "只列出来、不拿来对比")
    if not s.measured:
        return f"{head}:服务器没有报告 cached_tokens,没有实测值可以对比"
    return (f"{head}:{s.measured} 个有实测的 cached_tokens,{s.agree} 个预测完全一致,{s.differ} 个不一致"
            f"(最大相差 {s.max_abs_difference} token)")


def not_a_recording(path: Path, shown: str) -> str | None:
    """Why ``path`` is not a recording directory, in Chinese; None when it has a manifest.json."""
    if not path.exists():
        return f"无法打开录制:没有 {shown} 这个目录"
    if not path.is_dir():
        return f"无法打开录制:{shown} 是一个文件;请给录制目录本身(放 manifest.json 的那个目录)"
    if not (path / "manifest.json").is_file():
        inside = sorted(p.parent.name for p in path.glob("*/manifest.json"))
        hint = f";它里面的录制有 {'、'.join(inside)},请选其中一个" if inside else ""
        return f"无法打开录制:{shown} 不是一份录制(里面没有 manifest.json){hint}"
    return None


# Why a session has no counterfactual (counterfactual.CounterfactualError), in Chinese
_NO_COUNTERFACTUAL = [
    ("no remember call", "会话里没有 remember 调用,没有可以提前刷新的笔记"),
    ("carries no memory", "它的 system prompt 里没有记忆块,没有可刷新的东西"),
    ("not built by miniagent's SystemPrompt", "它的 system prompt 不是 miniagent 的 SystemPrompt 写的,重建不了"),
]


def counterfactual_reason(err: Exception) -> str:
    return next((zh for en, zh in _NO_COUNTERFACTUAL if en in str(err)), f"反事实建不起来(原话:{err})")


def breakpoint_effect(replay, c: Controls, rows) -> str:
    """What the explicit breakpoint did, against automatic caching alone (same rule, model, k, session)."""
    if not (c.breakpoint and takes(c.rule, "breakpoints")):
        return ""
    auto = scenario_rows(replay, c.rule, rule_settings(c.rule, c.model, None), c.k, c.session)
    read, write = sum(r.read for r in rows), sum(r.write for r in rows)
    read0, write0 = sum(r.read for r in auto), sum(r.write for r in auto)
    if (read, write) == (read0, write0):
        return (f"显式断点在 {c.breakpoint}:和只用自动缓存的数完全一样(从缓存读 {read:,},写入 {write:,})。"
                "没有哪个请求因为这个断点多读一个 token。断点处的条目要么被上一个请求末尾自动写下的更长条目盖过"
                "(断点前的内容没变),要么对不上(断点前的内容变了,例如刷新那一轮),要么断点前不到最短可缓存长度、"
                "根本没有写。")
    return (f"显式断点在 {c.breakpoint}:和只用自动缓存相比,从缓存读 {read - read0:+,} token,"
            f"写入缓存 {write - write0:+,} token(共读 {read:,},写 {write:,})")


def break_info(row, comparable: bool) -> dict:
    whole = row.break_at is not None and row.break_at >= row.prompt_tokens
    return {"round": row.round, "prompt_tokens": row.prompt_tokens, "read": row.read, "write": row.write,
            "fresh": row.fresh, "measured": row.measured, "ok": row.ok if comparable else None,
            "break_at": row.break_at, "block": row.break_block, "before": row.before_break,
            "after": row.after_break, "next_blocks": list(row.next_blocks), "whole_prompt": whole,
            "matched_entry": row.matched_entry}


def cost_of(row, model: str) -> dict:
    breakdown = pricing.request_cost(row.prediction, model)
    terms = [{"name": t.name, "label": TERM_LABELS.get(t.name, t.name), "tokens": t.tokens,
              "base_price": t.base_price, "multiplier": t.multiplier, "usd": t.usd} for t in breakdown.terms]
    return {"model": breakdown.model, "round": row.round, "terms": terms, "total": breakdown.total,
            "source": breakdown.source}


def conversion_notes(recording, c: Controls) -> list[str]:
    model = recording.provenance["model"]["name"]
    notes = [f"换算,不是账单:token 数来自 {model} 的分词器,价格用 {c.model} 的价目表;"
             "Claude 自己的分词器会数出不同的数。"]
    if c.rule != PRICE_RULE:
        notes.append(f"费用按 {rule_label(PRICE_RULE)} 的缓存规则重放同样的请求再计价;"
                     f"上面 {rule_label(c.rule)} 的行是另一种缓存的计数,不拿来计价。")
    return notes


def day_readings(replay, c: Controls, price_settings: dict) -> list[dict]:
    """The session under a cloud cache, read two ways: with the recorded clock (day 2 seconds after
    day 1, as on our local server) and with a day between recorded days (every cloud entry expired).

    The cloud rule is the one shown if it is a cloud rule, else Claude's; costs only under Claude's
    (the lab's prices are Claude's)."""
    if c.k:
        return []
    rule = c.rule if rules.get(c.rule).PROVIDER else PRICE_RULE
    settings = price_settings if rule == PRICE_RULE else rule_settings(rule, c.model, c.breakpoint)
    out = []
    for label, gap in (("按录制时间(第二天紧跟第一天,几秒之后)", None),
                       ("隔一天(24 小时后,云端缓存早已过期)", calculator.NEXT_DAY_S)):
        rows = calculator.analyze(replay, rule, c.session, between_days=gap, **rule_config_of(settings))
        usd = pricing.total_cost([r.prediction for r in rows], c.model).total if rule == PRICE_RULE else None
        out.append({"label": label, "rule": rule_label(rule), "read": sum(r.read for r in rows),
                    "prompt": sum(r.prompt_tokens for r in rows), "usd": usd})
    return out if out[0]["read"] != out[1]["read"] else out[1:]
