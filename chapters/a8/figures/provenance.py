"""The 口径 note of chapter A8's figures: many recordings, one server and model family."""
from __future__ import annotations

from prefixlab.presenting.book import provenance_note
from prefixlab.recording.format import Recording


def note(recs: list[Recording], what: str, **extra):
    """provenance_note for figures built from several shipped recordings."""
    models = sorted({r.provenance["model"]["name"] for r in recs})
    dates = sorted(r.manifest["created"][:10] for r in recs)
    return provenance_note(
        recording=f"{what}({len(recs)} 份,data/recordings/;脚本策略或模型自己驱动,见各自的 manifest)",
        model=",".join(models),
        server="课程自带的 llama-server(各份录制的启动参数在 manifest 的 provenance.server.flags)",
        note="用量是服务器自己在每个回答里报告的 usage,由 python -m prefixlab bill 逐条相加,不经计算器推算",
        date=f"{dates[0]} … {dates[-1]}", **extra)
