"""The 口径 note of chapter A5's figures: where a recording's numbers come from."""
from __future__ import annotations

from prefixlab.presenting.book import provenance_note
from prefixlab.recording.format import Recording

HIDDEN_FLAGS = {"-m", "--host", "--port", "-lv"}  # paths, ports, log level: not cache or context settings


def server_flags(rec: Recording) -> str:
    flags = rec.provenance["server"]["flags"]
    return " ".join(f for i, f in enumerate(flags) if f not in HIDDEN_FLAGS and (i == 0 or flags[i - 1] not in HIDDEN_FLAGS))


def note(rec: Recording, name: str, **extra):
    """provenance_note for recording ``name`` (a directory under data/recordings), plus ``extra`` fields."""
    prov = rec.provenance
    return provenance_note(
        recording=f"data/recordings/{name}({rec.manifest['experiment']},脚本策略;摘要由服务器上的模型写)"
        if any(c.kind == "compaction" for c in rec.calls) else f"data/recordings/{name}({rec.manifest['experiment']},脚本策略)",
        model=f"{prov['model']['name']},sha256 {prov['model']['sha256'][:12]}…",
        server=f"{prov['server']['package']} 的 llama-server,参数 {server_flags(rec)}",
        tokenizer=prov["tokenizer"]["path"], template=prov["chat_template"]["path"],
        date=rec.manifest["created"][:10], **extra)
