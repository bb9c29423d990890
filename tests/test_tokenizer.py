"""The shipped tokenizer asset gives llama-server's ids (offline, from recordings; and live)."""

import json
import os

import pytest

from prefixlab.cache import gguf_tokenizer
from prefixlab.cache.gguf_tokenizer import GGUFTokenizerError, GGUFVocab, build_tokenizer, sha256_file
from prefixlab.cache.tokenizer import (TokenizerAssetError, load_tokenizer,
                                     text_token_ids)
from prefixlab.paths import TOKENIZER as DEFAULT_TOKENIZER, TOKENIZER_CORPUS as CORPUS_DIR
from prefixlab.recording.tokenizer_fixtures import ids_digest, load_cases, sweep_chunks
from prefixlab.serving.client import ServerClient

ASSET_DIR = DEFAULT_TOKENIZER.parent
TEXT_CASES = {c["name"]: c["text"] for c in load_cases("text-cases.json")}
RECORDED = json.loads((CORPUS_DIR / "server-tokenize.json").read_text(encoding="utf-8"))
SWEEP = json.loads((CORPUS_DIR / "server-unicode-sweep.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer()


# ---- offline: against the recordings --------------------------------------------------------

def test_recording_covers_every_case():
    assert sorted(c["name"] for c in RECORDED["cases"]) == sorted(TEXT_CASES)


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: c["name"])
def test_text_ids_equal_server(tok, case):
    assert text_token_ids(tok, TEXT_CASES[case["name"]]) == case["ids"]


def test_add_special_changes_nothing_for_this_model():
    # add_bos_token is false in the GGUF, so /tokenize with or without add_special agrees.
    assert all(c["same_with_add_special_false"] for c in RECORDED["cases"])


def _sweep_sample():
    chunks = list(zip(sweep_chunks(), SWEEP["chunks"]))
    if os.environ.get("PREFIXLAB_FULL_SWEEP") == "1":
        return chunks
    # The whole BMP, then every 16th chunk of the other planes (about 4 s).
    return [c for i, c in enumerate(chunks) if i < 16 or i % 16 == 0]


@pytest.mark.parametrize("chunk", _sweep_sample(), ids=lambda c: c[1]["first"])
def test_unicode_sweep_equals_server(tok, chunk):
    (first, last, text), recorded = chunk
    ids = text_token_ids(tok, text)
    assert (len(ids), ids_digest(ids)) == (recorded["n_ids"], recorded["sha256"])


def test_sweep_covers_all_code_points():
    assert len(SWEEP["chunks"]) == len(list(sweep_chunks()))
    assert SWEEP["chunks"][-1]["last"] == "U+10FFFF"


# ---- the behaviours the recordings show, spelled out -----------------------------------------

def test_special_tokens_are_parsed_inside_text(tok):
    ids = text_token_ids(tok, "a<|im_start|>b<|im_end|>")
    assert tok.token_to_id("<|im_start|>") in ids and tok.token_to_id("<|im_end|>") in ids


def test_digits_are_split_one_by_one(tok):
    assert len(text_token_ids(tok, "12345")) == 5


def test_no_bos_is_added(tok):
    assert text_token_ids(tok, "Hello")[0] != tok.token_to_id("<|im_start|>")


def test_byte_without_token_is_dropped_but_blocks_merges(tok):
    # 0x04 has no token: it vanishes, yet " \x04'" does not merge into " '" (one token),
    # as the server shows: "a '" + "s" is [a, " '", s], "a \x04's" is [a, " ", "'", s].
    pieces = [text_token_ids(tok, t) for t in ("a", " ", "'", "s")]
    assert text_token_ids(tok, "a \x04's") == sum(pieces, [])
    assert len(text_token_ids(tok, "a 's")) == 3
    assert tok.token_to_id("<|endoftext|>") not in text_token_ids(tok, "x\x04y")
    assert text_token_ids(tok, "<|endoftext|>") == [tok.token_to_id("<|endoftext|>")]


# ---- the asset and its provenance ---------------------------------------------------------------

def test_asset_matches_provenance():
    prov = json.loads((ASSET_DIR / "PROVENANCE.json").read_text(encoding="utf-8"))
    assert prov["asset_sha256"] == sha256_file(DEFAULT_TOKENIZER)
    assert prov["add_bos_token"] is False and prov["gguf_tokenizer_pre"] == "smollm"


def test_missing_asset_error_names_path_and_fix(tmp_path):
    missing = tmp_path / "nope.tokenizer.json"
    with pytest.raises(TokenizerAssetError) as err:
        load_tokenizer(missing)
    assert str(missing) in str(err.value) and "prefixlab.gguf_tokenizer" in str(err.value)


def test_corrupt_asset_error_names_path_and_fix(tmp_path):
    broken = tmp_path / "broken.tokenizer.json"
    broken.write_bytes(DEFAULT_TOKENIZER.read_bytes()[:5000])  # truncated
    with pytest.raises(TokenizerAssetError) as err:
        load_tokenizer(broken)
    assert str(broken) in str(err.value) and "prefixlab.gguf_tokenizer" in str(err.value)
    assert broken.read_bytes() == DEFAULT_TOKENIZER.read_bytes()[:5000]  # left as it was


def _tiny_vocab(**changes):
    fields = dict(model="gpt2", pre="smollm", tokens=["a", "b", "ab"], token_types=[1, 1, 1],
                  merges=["a b"], add_bos=False, add_eos=False, unk_id=0, bos_id=None,
                  eos_id=None, chat_template=None)
    fields.update(changes)
    return GGUFVocab(**fields)


@pytest.mark.parametrize("changes, message", [
    ({"model": "llama"}, "not byte-level BPE"),
    ({"pre": "deepseek-coder"}, "not mapped yet"),
    ({"add_bos": True}, "BOS/EOS"),
    ({"token_types": [1, 1, 6]}, "token types"),
    ({"merges": ["ab"]}, "malformed merge"),
    ({"tokens": ["a", "a", "ab"]}, "duplicate token"),
    ({"unk_id": None}, "unknown_token_id"),
])
def test_unsupported_gguf_is_refused(tmp_path, changes, message):
    with pytest.raises(GGUFTokenizerError, match=message):
        build_tokenizer(_tiny_vocab(**changes), tmp_path / "unicode-data.cpp")


def test_cli_reports_missing_gguf(tmp_path, capsys):
    code = gguf_tokenizer.main([str(tmp_path / "x.gguf"), "--out", str(tmp_path / "t.json"),
                                "--provenance", "", "--llama-cpp-src", str(tmp_path)])
    assert code == 2 and "not found" in capsys.readouterr().err
    assert not (tmp_path / "t.json").exists()


def _derivation_inputs():
    from prefixlab.serving import server
    return server.model_path(), server.source_dir() / "llama.cpp" / "src" / "unicode-data.cpp"


def test_rederivation_reproduces_the_asset(tmp_path):
    # Runs in CI (.ci/run fetches the models before make test); PREFIXLAB_REQUIRE_MODELS=1 makes a
    # missing input a failure instead of a skip.
    gguf, unicode_data = _derivation_inputs()
    if not (gguf.is_file() and unicode_data.is_file()):
        where = "GGUF or llama.cpp source not in the prefixlab cache (python -m prefixlab.server fetch)"
        if os.environ.get("PREFIXLAB_REQUIRE_MODELS") == "1":
            pytest.fail(f"PREFIXLAB_REQUIRE_MODELS=1 but the {where}")
        pytest.skip(where)
    out = tmp_path / "t.json"
    info = gguf_tokenizer.derive(gguf, out, None, "test", unicode_data)
    prov = json.loads((ASSET_DIR / "PROVENANCE.json").read_text(encoding="utf-8"))
    assert info["gguf_sha256"] == prov["gguf_sha256"]
    assert out.read_bytes() == DEFAULT_TOKENIZER.read_bytes()


# ---- online: against a live llama-server ------------------------------------------------------

live = pytest.mark.skipif(
    os.environ.get("PREFIXLAB_REAL_SERVER") != "1" or not os.environ.get("PREFIXLAB_SERVER_URL"),
    reason="set PREFIXLAB_REAL_SERVER=1 and PREFIXLAB_SERVER_URL=http://127.0.0.1:PORT")


@pytest.mark.server
@live
def test_live_text_ids(tok):
    client = ServerClient(os.environ["PREFIXLAB_SERVER_URL"])
    for name, text in TEXT_CASES.items():
        assert text_token_ids(tok, text) == client.tokenize(text), name


@pytest.mark.server
@live
def test_live_unicode_sweep_sample(tok):
    client = ServerClient(os.environ["PREFIXLAB_SERVER_URL"])
    for (first, last, text), _ in _sweep_sample():
        assert text_token_ids(tok, text) == client.tokenize(text), hex(first)


# ---- seeded random texts (inputs regenerated from the seed, server digests recorded) ----------

RANDOM = json.loads((CORPUS_DIR / "server-random.json").read_text(encoding="utf-8"))


def test_random_texts_equal_server(tok):
    from prefixlab.recording.tokenizer_fixtures import random_cases
    cases = random_cases(RANDOM["seed"])["texts"]
    assert [c["name"] for c in cases] == [r["name"] for r in RANDOM["texts"]]
    mismatched = [c["name"] for c, r in zip(cases, RANDOM["texts"])
                  if ids_digest(text_token_ids(tok, c["text"])) != r["sha256"]]
    assert mismatched == []


def test_decode_gives_the_text_back(tok):
    # Control-character cases lose the bytes that have no token, by design.
    for name, text in TEXT_CASES.items():
        if name in ("control-chars", "astral-plane"):
            continue
        assert tok.decode(text_token_ids(tok, text), skip_special_tokens=False) == text, name


def test_token_spans_cover_the_text(tok):
    from prefixlab.cache.tokenizer import text_token_spans
    text = TEXT_CASES["special-tokens-in-text"] + TEXT_CASES["chinese-prose"]
    spans = text_token_spans(tok, text)
    assert [i for i, _, _ in spans] == text_token_ids(tok, text)
    assert spans[0][1] == 0 and spans[-1][2] == len(text)
    assert all(a[2] <= b[1] or a[1:] == b[1:] for a, b in zip(spans, spans[1:]))  # in order
