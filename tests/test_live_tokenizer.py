"""The live model's tokenizer asset (Qwen2.5 Coder 0.5B) against every recorded request made with it.

The asset ``data/tokenizers/qwen2.5-coder-0.5b-instruct.tokenizer.json`` is derived from the live
GGUF by ``python -m prefixlab.gguf_tokenizer``. Two checks:

- offline, always: each request of every shipped recording made with the live model is rendered
  with its recorded chat template and tokenized with the asset (the HF ``tokenizers`` tokenizer the
  course uses); the length must equal the server's ``usage.prompt_tokens`` (``n_prompt_tokens`` of a
  refused request). The recordings hold counts, not ids, so this compares counts.
- with the live GGUF and the llama.cpp source in the prefixlab cache (``python -m prefixlab.server
  fetch --model live``, which CI runs before ``make test``): re-deriving the asset gives it byte for
  byte. ``PREFIXLAB_REQUIRE_MODELS=1`` turns the skip into a failure.
"""
import json
import os
import time

import pytest

from prefixlab.cache import gguf_tokenizer
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.paths import REPO_ROOT
from prefixlab.recording.format import find_recordings, load
from prefixlab.recording.live import TOKENIZER
from prefixlab.recording.verify import check
from prefixlab.serving.server import sha256_file

ASSET = TOKENIZER.relative_to(REPO_ROOT).as_posix()
PROVENANCE = TOKENIZER.parent / "PROVENANCE-qwen2.5-coder-0.5b-instruct.json"


def _live_recordings():
    """Shipped recordings whose manifest names the live tokenizer (read from the manifests here)."""
    paths = []
    for path in find_recordings():
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
        if manifest["provenance"]["tokenizer"]["path"] == ASSET:
            paths.append(path)
    return paths


LIVE_RECORDINGS = _live_recordings()


def test_the_live_recordings_are_the_ones_named_after_the_live_model():
    named = {p.name for p in find_recordings() if "qwen2.5-coder-0.5b" in p.name}
    assert {p.name for p in LIVE_RECORDINGS} == named and named


def test_every_live_request_re_tokenizes_to_the_servers_count():
    start = time.perf_counter()
    tok = load_tokenizer(TOKENIZER)  # once: the 151,936-token vocabulary takes a second to load
    asset_sha = sha256_file(TOKENIZER)
    checked, mismatched = 0, []
    for path in LIVE_RECORDINGS:
        recording = load(path)
        assert recording.provenance["tokenizer"]["sha256"] == asset_sha, path.name
        mismatched += [(path.name, m) for m in check(recording, tok)]
        checked += len(recording.calls)
    # every request in every live recording's order, counted from the manifests themselves
    in_order = sum(len(json.loads((p / "manifest.json").read_text(encoding="utf-8"))["order"])
                   for p in LIVE_RECORDINGS)
    assert checked == in_order > 0
    assert mismatched == []
    assert time.perf_counter() - start < 60  # about 10 s on the shared 2-core machine


def test_a_wrong_count_is_caught():
    # The check is not vacuous: one recorded count off by one is a mismatch naming that request.
    tok = load_tokenizer(TOKENIZER)
    recording = load(LIVE_RECORDINGS[0])
    call = recording.calls[0]
    usage = call.response["usage"] if call.response is not None else call.error["body"]["error"]
    key = "prompt_tokens" if call.response is not None else "n_prompt_tokens"
    usage[key] += 1
    [m] = check(recording, tok)
    assert (m.seq, m.server, m.ours) == (call.seq, call.prompt_tokens, call.prompt_tokens - 1)


def _live_inputs():
    from prefixlab.serving import models, server
    cache = server.cache_dir()
    return (models.model_file(models.LIVE, cache),
            server.source_dir(cache) / "llama.cpp" / "src" / "unicode-data.cpp")


def _require_or_skip(paths, fetch):
    if all(p.is_file() for p in paths):
        return
    missing = ", ".join(str(p) for p in paths if not p.is_file())
    if os.environ.get("PREFIXLAB_REQUIRE_MODELS") == "1":
        pytest.fail(f"PREFIXLAB_REQUIRE_MODELS=1 but {missing} is missing ({fetch})")
    pytest.skip(f"{missing} not in the prefixlab cache ({fetch})")


def test_rederivation_reproduces_the_live_asset(tmp_path):
    gguf, unicode_data = _live_inputs()
    _require_or_skip((gguf, unicode_data), "python -m prefixlab.server fetch --model live")
    out = tmp_path / TOKENIZER.name
    info = gguf_tokenizer.derive(gguf, out, None, "test", unicode_data)
    prov = json.loads(PROVENANCE.read_text(encoding="utf-8"))
    assert info["gguf_sha256"] == prov["gguf_sha256"]
    assert (info["n_tokens"], info["n_merges"]) == (prov["n_tokens"], prov["n_merges"])
    assert out.read_bytes() == TOKENIZER.read_bytes()
