"""What every recording made with the live model (``--model live``) shares: its server flags, its
tokenizer and the provenance of a recording made on it.

The live model is Qwen2.5 Coder 0.5B Instruct (``prefixlab.serving.models.LIVE``), served by the
course's llama-server with the chat template inside its GGUF. The chapters' experiments that record
with it import these.

The server runs with ``-t 1``: on a 2-core machine shared with other busy processes, two threads spent
most of their time waiting for each other (benchmarks/bench_live_model.py measures both).
"""
from __future__ import annotations

import platform

from prefixlab.paths import DATA, REPO_ROOT
from prefixlab.serving.server import sha256_file

TOKENIZER = DATA / "tokenizers" / "qwen2.5-coder-0.5b-instruct.tokenizer.json"  # derived from the GGUF
SERVER_ARGS = ["-t", "1"]


def live_provenance(server, command: str) -> dict:
    """What the recording must say about the server, the model, its template and the tokenizer."""
    from prefixlab.serving.models import LIVE
    from prefixlab.serving.state_size import kv_state_size

    prov = server.provenance()
    return {
        "server": {"kind": "llama-server", "restarts": True, **prov["server"], "flags": prov["flags"],
                   "props": prov["props"], "platform": prov["platform"],
                   "kv_state": kv_state_size(server.binary, server.model, server.cache, server.log)},
        "model": {"name": LIVE.description, **prov["model"]},
        # the template inside the GGUF, as the server reported it (GET /props)
        "chat_template": {"path": None, "sha256": prov["chat_template"]["sha256"],
                          "text": prov["chat_template"]["text"],
                          "server_uses_same_text": prov["chat_template"]["server_uses_same_text"]},
        "tokenizer": {"path": str(TOKENIZER.relative_to(REPO_ROOT)), "sha256": sha256_file(TOKENIZER)},
        "recorder": {"python": platform.python_version(), "platform": platform.platform(terse=True),
                     "command": command},
    }
