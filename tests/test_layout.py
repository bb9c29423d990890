"""prefixlab's layout: layers that import only downwards, one paths module, working entry points."""
import ast
import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "prefixlab"
LAYERS = ["paths", "serving", "recording", "cache", "presenting"]  # each may import the ones before it
# (importing module, imported layer): why the order allows it
EXCEPTIONS = {("prefixlab.recording.verify", "cache"): "verify re-tokenizes recordings with cache.tokenizer"}
EXCEPTIONS[("prefixlab.recording.t12", "cache")] = ("T12 counts its requests' tokens with cache.tokenizer before "
                                                    "sending them, to find how many skill texts fit the window")
ENTRY_POINTS = {"server", "record_t10", "record_t11", "verify", "compare", "report", "gguf_tokenizer",
                "tokenizer_fixtures"}
ENTRY_POINTS |= {"record_t12"}
ENTRY_POINTS |= {"record_t14"}  # side lesson A6·R
ENTRY_POINTS |= {"record_t13"}  # lesson A6·4


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


def prefixlab_imports(name: str, path: Path) -> set[str]:
    """Every prefixlab module ``path`` imports, relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "prefixlab"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] == "prefixlab":
                out |= {base} | {f"{base}.{a.name}" for a in node.names}
    return out


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS:
        return parts[1]
    return None


@pytest.mark.parametrize("name, path", list(modules()), ids=lambda x: x if isinstance(x, str) else "")
def test_each_layer_imports_only_the_layers_before_it(name, path):
    mine = layer_of(name)
    if mine is None:
        return  # the package itself and the entry points (checked below)
    allowed = set(LAYERS[: LAYERS.index(mine) + 1])
    wrong = sorted({(m, layer_of(m)) for m in prefixlab_imports(name, path)
                    if layer_of(m) and layer_of(m) not in allowed and (name, layer_of(m)) not in EXCEPTIONS})
    assert not wrong, f"{name} ({mine}) imports from a later layer: {wrong}"


def test_top_level_holds_only_paths_and_entry_points():
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "paths"}
    assert top == ENTRY_POINTS
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(LAYERS) - {"paths"}


def commands_in_use() -> set[str]:
    """Every ``python -m prefixlab.X`` the README, Makefile, docs, notebooks and recordings name."""
    texts = [ROOT / "README.md", ROOT / "Makefile", *ROOT.glob("data/**/*.md"), *ROOT.glob("data/**/*.json"),
             *ROOT.glob("book/**/*.ipynb"), *ROOT.glob("labs/**/*.ipynb")]
    found = set()
    for path in texts:
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r"python -m prefixlab\.([a-z_0-9]+)", text))
        found |= set(re.findall(r'run_module\(\s*\\?"prefixlab\.([a-z_0-9]+)', text))
        found |= set(re.findall(r'\\?"prefixlab\.([a-z_0-9]+)\\?", ', text))  # run_module("prefixlab.x", ...) in a cell
    manifest = json.loads((ROOT / "data/recordings/t10-smollm2-llamacpp/manifest.json").read_text(encoding="utf-8"))
    found.add(manifest["provenance"]["recorder"]["command"].split()[2].split(".")[1])
    return found


def test_every_command_in_use_is_an_entry_point():
    used = commands_in_use()
    assert {"server", "record_t10", "record_t11", "verify", "compare", "report", "gguf_tokenizer",
            "tokenizer_fixtures"} <= used
    assert used <= ENTRY_POINTS


@pytest.mark.parametrize("command", sorted(ENTRY_POINTS))
def test_entry_points_are_small_and_run(command, capsys):
    path = PACKAGE / f"{command}.py"
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 15, "an entry point only calls its command"
    module = importlib.import_module(f"prefixlab.{command}")
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0
    assert f"python -m prefixlab.{command}" in capsys.readouterr().out


def test_repository_paths_come_from_prefixlab_paths():
    walking_up = re.compile(r"__file__\)?[^\n]*\.(parent\.parent|parents\[)")
    offenders = [name for name, path in modules()
                 if name != "prefixlab.paths" and walking_up.search(path.read_text(encoding="utf-8"))]
    assert not offenders


def test_group_and_kind_names_are_defined_once():
    names = ("刷新组", "冻结组", "主会话", "录制的反事实")
    offenders = []
    for name, path in modules():
        if name == "prefixlab.presenting.labels":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                offenders.append(f"{name}:{node.lineno} {node.value}")
    assert not offenders


def test_no_comment_points_outside_the_repository():
    outside = re.compile(r"(?<![\w.~-])/(work|home|Users|root|shared)/")
    offenders = [str(p.relative_to(ROOT)) for folder in ("prefixlab", "tests", "scripts", "benchmarks")
                 for p in sorted((ROOT / folder).rglob("*.py")) if outside.search(p.read_text(encoding="utf-8"))]
    assert not offenders
