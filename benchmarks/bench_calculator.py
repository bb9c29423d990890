"""How fast is the calculator, compared with the server's own prefill of the same requests?

    python benchmarks/bench_calculator.py              # every shipped recording, 5 cold / 21 warm runs
    python benchmarks/bench_calculator.py --repeat 3   # quicker

Measured (medians over repeated runs, wall clock, this machine):

- cold: render + tokenize + cut into blocks every request (nothing cached), then replay it under
  every rule;
- warm: replay under one rule with the token ids already cached (what a notebook does after
  the first cell);
- widget update: one slider/menu change in the lab -- one counterfactual k (10 requests) under
  another rule, or one session's epoch under another rule, ids cached.

The server column is the recorded ``timings.prompt_ms`` of the same requests: how long llama-server
took to prefill their uncached tokens (``prompt_n``). ratio = ours / server's.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prefixlab.cache import calculator, counterfactual  # noqa: E402
from prefixlab.paths import RECORDINGS  # noqa: E402
from prefixlab.recording.format import find_recordings  # noqa: E402


def median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def server_prefill(calls) -> tuple[float, int]:
    """(seconds, tokens) the server spent on prefill for these calls, from its own timings."""
    ms = sum((c.timings or {}).get("prompt_ms", 0.0) for c in calls)
    n = sum((c.timings or {}).get("prompt_n", 0) for c in calls)
    return ms / 1000, n


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=0, help="runs per measurement (default: 5 cold, 21 warm)")
    args = p.parse_args(argv)
    cold_n, warm_n = (args.repeat, args.repeat) if args.repeat else (5, 21)
    paths = find_recordings()
    if not paths:
        print("no shipped recordings found", file=sys.stderr)
        return 1
    recordings = [calculator.load_recording(path) for path in paths]
    all_calls = [c for r in recordings for c in r.calls]
    n_tokens = sum(c.prompt_tokens for c in all_calls)
    server_all = server_prefill(all_calls)
    rules = calculator.rule_names()

    def cold():
        calculator.clear_caches()
        for rec in recordings:
            replay = calculator.prepare(rec)
            for rule in rules:
                calculator.analyze(replay, rule)

    def tokenize_only():
        calculator.clear_caches()
        for rec in recordings:
            calculator.prepare(rec)

    rows = [("tokenize + attribute, all recordings (cold)", median_seconds(tokenize_only, cold_n), server_all),
            (f"cold: tokenize + replay under all {len(rules)} rules", median_seconds(cold, cold_n), server_all)]
    replays = [calculator.prepare(rec) for rec in recordings]
    for rule in rules:
        rows.append((f"warm: replay all under {rule}",
                     median_seconds(lambda: [calculator.analyze(r, rule) for r in replays], warm_n), server_all))

    # widget-sized updates on the recording the calculator lab opens first (data/recordings/DEFAULT)
    default = (RECORDINGS / "DEFAULT").read_text(encoding="utf-8").strip()
    replay = next(r for r, path in zip(replays, paths) if path.name == default)
    rec = replay.recording
    ks = counterfactual.k_values(rec)
    if len(ks):
        k = ks[len(ks) // 2]
        counterfactual.predict(replay, k)  # tokenize the built requests once (content cache)
        sid = counterfactual.recorded_session(rec, k)
        involved = rec.session_calls(sid) if sid else rec.session_calls(counterfactual.history_session(rec))
        rows.append((f"widget: counterfactual k={k} under anthropic",
                     median_seconds(lambda: counterfactual.predict(replay, k, "anthropic", model="claude-opus-5"), warm_n),
                     server_prefill(involved)))
    session = rec.manifest["sessions"][0]["id"]
    epoch = rec.session_calls(session)[0].epoch
    rows.append((f"widget: {session} (its epoch) under openai",
                 median_seconds(lambda: calculator.analyze(replay, "openai", sessions=session), warm_n),
                 server_prefill([c for c in rec.calls if c.epoch == epoch])))

    print(f"{len(recordings)} recording(s), {len(all_calls)} requests, {n_tokens} prompt tokens; "
          f"server prefill of the uncached part: {server_all[0]:.1f} s for {server_all[1]} tokens")
    print(f"medians of {cold_n} cold / {warm_n} warm runs")
    print(f"{'what':<52} {'ours ms':>9} {'server ms':>10} {'ratio':>7}")
    for what, ours, (server_s, _) in rows:
        ratio = f"{ours / server_s:.4f}" if server_s else "-"
        print(f"{what:<52} {ours * 1000:>9.1f} {server_s * 1000:>10.0f} {ratio:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
