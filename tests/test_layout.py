"""prefixlab's layout: generic instruments in layers that import only downwards, one command line
with its verbs, the old command names as small working aliases, experiments registered by chapters."""
import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlab.__main__ import VERBS
from prefixlab.recording import experiments as registry

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "prefixlab"
CHAPTERS = ROOT / "chapters"
LAYERS = ["paths", "serving", "recording", "eval", "cache", "presenting"]  # each may import the ones before it
# (importing module, imported layer): why the order allows it
EXCEPTIONS = {("prefixlab.recording.verify", "cache"): "verify re-tokenizes recordings with cache.tokenizer"}
# The short module names the README, the Makefile, data/ and the recordings use: each runs one verb's command.
COMMANDS = {"server", "verify", "compare", "report", "gguf_tokenizer", "tokenizer_fixtures"}
# Old names of recorders (recordings store the command that made them): each runs a registered experiment.
ALIASES = {exp.alias for exp in registry.experiments().values() if exp.alias}
# Lesson code still in prefixlab/presenting until the chapter package takes it over (the layout change
# moves it to chapters/a6/): they may name lessons and import chapter A6's paths. Nothing else may.
NOT_YET_REHOUSED: set[str] = set()  # every module is re-housed


def modules(package: Path = PACKAGE):
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


def imports(name: str, path: Path, top: str) -> set[str]:
    """Every module of package ``top`` that ``path`` imports, relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == top}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] == top:
                out |= {base} | {f"{base}.{a.name}" for a in node.names}
    return out


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS:
        return parts[1]
    return None


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("name, path", list(modules()), ids=lambda x: x if isinstance(x, str) else "")
def test_each_layer_imports_only_the_layers_before_it(name, path):
    mine = layer_of(name)
    if mine is None:
        return  # the package itself and the entry points (checked below)
    allowed = set(LAYERS[: LAYERS.index(mine) + 1])
    wrong = sorted({(m, layer_of(m)) for m in imports(name, path, "prefixlab")
                    if layer_of(m) and layer_of(m) not in allowed and (name, layer_of(m)) not in EXCEPTIONS})
    assert not wrong, f"{name} ({mine}) imports from a later layer: {wrong}"


def test_prefixlab_imports_no_chapter_package():
    offenders = {rel(path): sorted(imports(name, path, "chapters")) for name, path in modules()
                 if rel(path) not in NOT_YET_REHOUSED and imports(name, path, "chapters")}
    assert not offenders, "prefixlab finds the chapters at run time (recording.experiments), never imports them"


def test_prefixlab_names_no_lesson_or_experiment():
    # T10 ... T14, A1 ... A8 (A5·1, A6·1, a6-2, a6_r ...): the chapters' names, not the instruments'.
    lesson = re.compile(r"(?<![A-Za-z0-9])(T1[0-4]|t1[0-4]|A[1-8]|a[1-8])(?![0-9])")
    offenders = [f"{rel(path)}:{i}: {line.strip()}" for _, path in modules() if rel(path) not in NOT_YET_REHOUSED
                 for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if lesson.search(line)]
    assert not offenders, "\n".join(offenders)


def test_chapters_import_prefixlab_and_miniagent_not_each_other():
    for chapter in sorted(d for d in CHAPTERS.iterdir() if (d / "__init__.py").is_file()):
        for name, path in modules(chapter):
            others = {m for m in imports(name, path, "chapters") if m.split(".")[1] != chapter.name}
            assert not others, f"{name} imports another chapter: {sorted(others)}"


def test_top_level_holds_only_paths_the_command_line_and_entry_points():
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "paths", "__main__"}
    assert top == COMMANDS | ALIASES
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(LAYERS) - {"paths"}


def test_help_lists_every_verb_with_one_line():
    done = subprocess.run([sys.executable, "-m", "prefixlab", "--help"], capture_output=True, text=True, cwd=ROOT,
                          check=True)
    listed = {line.split()[0] for line in done.stdout.splitlines() if line.startswith("  ")}
    assert listed == set(VERBS) == {"server", "record", "verify", "compare", "report", "bill", "eval", "gguf-tokenizer",
                                    "tokenizer-fixtures"}
    for verb in VERBS:
        assert len([line for line in done.stdout.splitlines() if line.startswith(f"  {verb} ")]) == 1


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_each_verb_runs_its_command(verb, capsys):
    from prefixlab.__main__ import main

    with pytest.raises(SystemExit) as done:
        main([verb, "--help"])
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_an_unknown_verb_is_a_clear_error(capsys):
    from prefixlab.__main__ import main

    assert main(["recrod"]) == 2
    assert "unknown verb 'recrod'" in capsys.readouterr().err


@pytest.mark.parametrize("command", sorted(COMMANDS | ALIASES))
def test_old_names_are_small_and_run(command, capsys):
    path = PACKAGE / f"{command}.py"
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 15, "an entry point only calls its command"
    module = importlib.import_module(f"prefixlab.{command}")
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0
    assert f"python -m prefixlab.{command}" in capsys.readouterr().out


def test_the_experiments_register_and_their_recordings_are_shipped():
    known = registry.experiments()
    assert set(known) == {"a1", "a1-live", "a2-1", "a2-2", "a2-4", "a2-loop", "a2-ways", "a3-2", "a3-3", "a3-3-live", "a4-1", "a4-2", "a4-3", "a5-1", "a5-1-triggers", "a5-2", "a5-3", "a5-4", "a6-1", "a6-2", "a6-3", "a6-4", "a6-r", "a7-1", "a7-2", "a7-3", "a7-4-parallel", "a7-4-review", "a7-4-review-live", "a8-3", "a8-3-waterfall", "a9"}
    assert ALIASES == {"record_t10", "record_t11", "record_t12", "record_t13", "record_t14"}
    made_by = {}
    for exp in known.values():
        assert exp.chapter == exp.name.split("-")[0] and exp.module.startswith(f"chapters.{exp.chapter}.experiments.")
        for shipped in exp.recordings:
            manifest = json.loads((ROOT / "data/recordings" / shipped / "manifest.json").read_text(encoding="utf-8"))
            assert manifest["experiment"] == exp.recorder.experiment, shipped
            made_by[shipped] = exp.name
    # every shipped recording comes from a registered recorder (a few with non-default options)
    recorders = {exp.recorder.experiment for exp in known.values()}
    for manifest in sorted((ROOT / "data/recordings").glob("*/manifest.json")):
        assert json.loads(manifest.read_text(encoding="utf-8"))["experiment"] in recorders, manifest


def test_record_list_and_unknown_names(capsys):
    assert registry.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in registry.experiments())
    with pytest.raises(SystemExit):
        registry.main(["a6-9"])
    assert "no experiment 'a6-9'" in capsys.readouterr().err


def commands_in_use() -> tuple[set[str], set[str], set[str]]:
    """Every ``python -m prefixlab.X``, ``python -m prefixlab VERB`` and ``record NAME`` the README,
    Makefile, docs, notebooks and recordings name."""
    texts = [ROOT / "README.md", ROOT / "Makefile", *ROOT.glob("data/**/*.md"), *ROOT.glob("data/**/*.json"),
             *ROOT.glob("book/**/*.ipynb"), *ROOT.glob("labs/**/*.ipynb")]
    modules_, verbs, names = set(), set(), set()
    for path in texts:
        text = path.read_text(encoding="utf-8")
        modules_ |= set(re.findall(r"python -m prefixlab\.([a-z_0-9]+)", text))
        modules_ |= set(re.findall(r'run_module\(\s*\\?"prefixlab\.([a-z_0-9]+)', text))
        modules_ |= set(re.findall(r'\\?"prefixlab\.([a-z_0-9]+)\\?", ', text))  # run_module("prefixlab.x", ...)
        verbs |= set(re.findall(r"python -m prefixlab ([a-z][a-z-]*)", text))
        names |= set(re.findall(r"python -m prefixlab record ([a-z0-9][a-z0-9-]*)", text))
        names |= set(re.findall(r"make record EXP=([a-z0-9][a-z0-9-]*)", text))
    for manifest in ROOT.glob("data/recordings/*/manifest.json"):
        command = json.loads(manifest.read_text(encoding="utf-8"))["provenance"]["recorder"]["command"]
        modules_ |= set(re.findall(r"python -m prefixlab\.([a-z_0-9]+)", command))
    return modules_, verbs, names


def test_every_command_in_use_exists():
    modules_, verbs, names = commands_in_use()
    assert {"record_t10", "record_t11", "record_t13", "record_t14"} <= modules_  # what the recordings store
    assert modules_ <= COMMANDS | ALIASES
    assert {"record", "verify", "report"} <= verbs <= set(VERBS)  # the README teaches the verbs
    assert "a6-2" in names and names <= set(registry.experiments())


def test_repository_paths_come_from_a_paths_module():
    walking_up = re.compile(r"__file__\)?[^\n]*\.(parent\.parent|parents\[)")
    offenders = [name for name, path in [*modules(), *modules(CHAPTERS)]
                 if name != "prefixlab.paths" and ".tests." not in name and walking_up.search(path.read_text(encoding="utf-8"))]
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
    offenders = [str(p.relative_to(ROOT)) for folder in ("prefixlab", "chapters", "tests", "scripts", "benchmarks")
                 for p in sorted((ROOT / folder).rglob("*.py")) if outside.search(p.read_text(encoding="utf-8"))]
    assert not offenders
