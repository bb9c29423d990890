"""Test helper: record on a fresh llama-server (tests marked ``server``; PREFIXLAB_REAL_SERVER=1)."""
from __future__ import annotations

from pathlib import Path

from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER
from prefixlab.recording.format import Recording, load, write_manifest
from prefixlab.recording.recorder import base_provenance, llama_server_provenance


def record_on_fresh_server(out: Path, make_recorder, run, extra_args=()) -> Recording:
    """Start a fresh server (its cache empty), build ``make_recorder(out, connect, restart, provenance,
    model_name, log=...)``, call ``run(recorder)``, write the manifest as complete and load it."""
    from prefixlab.serving.server import LlamaServer, free_port

    with LlamaServer(port=free_port(), extra_args=extra_args) as server:
        provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER) | llama_server_provenance(server)
        recorder = make_recorder(out, lambda: server.openai_base_url, lambda epoch: epoch, provenance, "local",
                                 log=lambda line: None)
        run(recorder)
        recorder.manifest["status"] = "complete"
        write_manifest(out, recorder.manifest)
    return load(out)
