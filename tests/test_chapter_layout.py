"""The house for the chapters: prefixlab knows no chapter, chapters know no other chapter, every
package map is complete, and _toc.yml lists exactly the notebooks under book/ and labs/."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from prefixlab.paths import REPO_ROOT

CHAPTERS = REPO_ROOT / "chapters"
CHAPTER_IDS = sorted(p.name for p in CHAPTERS.iterdir() if (p / "__init__.py").is_file())


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out |= {base} | {f"{base}.{a.name}" for a in node.names}
    return out


def test_the_checker_resolves_relative_imports(tmp_path):
    assert "chapters.a6.figures.recall" in imported(CHAPTERS / "a6" / "exercises" / "a6_r.py")


@pytest.mark.parametrize("path", python_files(REPO_ROOT / "prefixlab"), ids=module_name)
def test_prefixlab_imports_no_chapter(path):
    wrong = sorted(m for m in imported(path) if m.split(".")[0] == "chapters")
    assert not wrong, f"{module_name(path)} imports chapter code {wrong}: instruments serve every chapter"


@pytest.mark.parametrize("path", python_files(REPO_ROOT / "miniagent"), ids=module_name)
def test_miniagent_imports_neither_instruments_nor_chapters(path):
    wrong = sorted(m for m in imported(path) if m.split(".")[0] in ("chapters", "prefixlab"))
    assert not wrong, f"{module_name(path)} imports {wrong}: the agent stands alone"


@pytest.mark.parametrize("path", python_files(CHAPTERS), ids=module_name)
def test_a_chapter_imports_no_other_chapter(path):
    mine = module_name(path).split(".")
    if len(mine) < 2:
        return  # chapters/__init__.py: the map only
    wrong = sorted(m for m in imported(path)
                   if m.split(".")[0] == "chapters" and len(m.split(".")) > 1 and m.split(".")[1] != mine[1])
    assert not wrong, f"{module_name(path)} imports another chapter {wrong}: share it through prefixlab instead"


def packages() -> list[Path]:
    """Every package whose ``__init__`` docstring must map its modules (test folders aside)."""
    roots = [CHAPTERS, *(CHAPTERS / c for c in CHAPTER_IDS),
             *(REPO_ROOT / "prefixlab" / layer for layer in ("presenting", "cache", "serving", "recording"))]
    found = []
    for root in roots:
        found += [p.parent for p in sorted(root.rglob("__init__.py"))
                  if "__pycache__" not in p.parts and p.parent.name != "tests"
                  and (root == CHAPTERS) <= (p.parent == CHAPTERS)
                  and p.parent != REPO_ROOT / "prefixlab" / "cache" / "rules"]  # its map is the rules table (below)
    return sorted(set(found) | {REPO_ROOT / "prefixlab"})  # prefixlab's own map: its layers and entry points


def map_entries(doc: str) -> list[str]:
    """The names a package map lists: a line that starts with ``name`` and a space (nested lines are indented)."""
    return re.findall(r"^``(\w+)``\s", doc, re.M)


@pytest.mark.parametrize("package", packages(), ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_every_package_map_lists_exactly_its_modules(package):
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    members = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    members |= {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    if package == CHAPTERS:
        members = set(CHAPTER_IDS)
    if package == REPO_ROOT / "prefixlab":  # the experiments' old names: one line (``record_...``), checked below
        members = {m for m in members if not m.startswith("record_")}
    listed = map_entries(doc)
    where = f"{package.relative_to(REPO_ROOT)}/__init__.py"
    assert sorted(set(listed)) == sorted(listed), f"{where}: a module listed twice in its map"
    assert not sorted(members - set(listed)), f"{where}: add {sorted(members - set(listed))} to its map"
    assert not sorted(set(listed) - members), f"{where}: its map lists {sorted(set(listed) - members)}, not here"


def test_every_record_module_of_prefixlab_is_an_experiments_old_name():
    from prefixlab.recording.experiments import by_alias
    aliases = sorted(p.stem for p in (REPO_ROOT / "prefixlab").glob("record_*.py"))
    assert aliases and all(by_alias(alias).alias == alias for alias in aliases)  # by_alias raises for a stray one


def rules_table(doc: str) -> list[str]:
    """The rule names of prefixlab.cache.rules' table: its first column, a name cut at a hyphen joined again."""
    rows = doc.split("\n==========", 3)[2].split("\n", 1)[1].splitlines()
    names = []
    for row in rows:
        piece = row[:12].split("  ")[0].strip()
        if piece and names and names[-1].endswith("-"):
            names[-1] += piece
        elif piece:
            names.append(piece)
    return names


def test_the_rules_table_lists_exactly_the_rules_and_the_package_holds_no_other_module():
    from prefixlab.cache import rules
    listed = rules_table(rules.__doc__)
    assert listed == list(rules.RULES), "the rules table of prefixlab/cache/rules/__init__.py, in RULES' order"
    modules = {p.stem for p in (REPO_ROOT / "prefixlab" / "cache" / "rules").glob("*.py")}
    assert modules == {m.__name__.rpartition(".")[2] for m in rules.RULES.values()} | {"__init__", "base"}


def test_the_rules_table_check_sees_a_name_cut_at_a_hyphen():
    line = "==========  ====\n"
    doc = f"Rules.\n\n{line}rule        source\n{line}alpha       a\nopenai-     b\nbreakpoints c\n            d\n{line}"
    assert rules_table(doc) == ["alpha", "openai-breakpoints"]


def test_the_map_check_sees_a_stale_entry_and_a_missing_one():
    doc = "Map.\n\n``alpha``  one\n``beta``   two\n  ``nested``  not an entry\nprose ``gamma`` not one either\n"
    assert map_entries(doc) == ["alpha", "beta"]


def toc_files() -> list[str]:
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(items):
        for item in items or []:
            if "file" in item:
                files.append(item["file"])
            walk(item.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return files


def test_every_toc_entry_exists():
    missing = [f for f in toc_files() if not any((REPO_ROOT / f"{f}{ext}").is_file() for ext in (".md", ".ipynb"))]
    assert not missing, f"_toc.yml lists pages that do not exist: {missing}"


def test_every_notebook_is_in_the_toc():
    listed = set(toc_files())
    notebooks = [p.relative_to(REPO_ROOT).with_suffix("").as_posix()
                 for folder in ("book", "labs") for p in sorted((REPO_ROOT / folder).rglob("*.ipynb"))
                 if ".ipynb_checkpoints" not in p.parts]
    assert notebooks, "no notebooks found"
    unlisted = [n for n in notebooks if n not in listed]
    assert not unlisted, f"add these notebooks to _toc.yml (the book would skip them): {unlisted}"


@pytest.mark.parametrize("chapter", CHAPTER_IDS)
def test_a_chapter_keeps_its_pages_labs_and_tests_in_its_folders(chapter):
    pages = [f for f in toc_files() if f.startswith(("book/", "labs/"))]
    written = [f for f in pages if f.startswith((f"book/{chapter}/", f"labs/{chapter}/"))]
    if written or (REPO_ROOT / "book" / chapter).exists() or (REPO_ROOT / "labs" / chapter).exists():
        # a written chapter (it has pages): its chapter page is book/<chapter>/index
        assert (REPO_ROOT / "book" / chapter / "index.ipynb").is_file(), "the chapter page is book/<chapter>/index"
    # (a chapter not written yet -- its experiments first, its pages in a later issue -- has no pages at all)
    flat = [f for f in pages if f.startswith(f"book/{chapter}-") or f.startswith(f"labs/{chapter}-")]
    assert not flat, f"chapter pages belong in book/{chapter}/ or labs/{chapter}/: {flat}"
    assert (CHAPTERS / chapter / "tests" / "__init__.py").is_file(), "a package, so test names never collide"
