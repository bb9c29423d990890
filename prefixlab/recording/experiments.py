"""The experiments the course can record, found at run time in the chapters.

Each chapter that records something has a package ``chapters/<chapter>/experiments`` whose
``__init__`` lists its experiments as :class:`Experiment` values in ``EXPERIMENTS``. prefixlab
imports no chapter statically: :func:`experiments` scans the ``chapters/`` folder and imports
what it finds with importlib, so adding an experiment touches only its chapter.

    from prefixlab.recording import experiments
    experiments.experiments()            # every registered experiment, by name
    experiments.get("NAME").main(argv)   # its command line
    python -m prefixlab record --list    # the same, on the command line
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from prefixlab.paths import CHAPTERS, RECORDINGS, REPO_ROOT


@dataclass(frozen=True)
class Experiment:
    """One experiment: what it is called, where it lives and what it records.

    ``module`` (a chapter module, imported only when the experiment runs) has
    ``main(argv, prog)``, its command line, and ``RECORDER``, its Recorder class.
    ``recordings`` maps each shipped recording a default run reproduces (a directory name in
    ``data/recordings``) to where that run writes it inside OUT (``"."``: OUT itself).
    ``alias`` is the old module name (``python -m prefixlab.<alias>``) that still runs it.
    """

    name: str
    chapter: str
    title: str
    module: str
    recordings: dict[str, str]
    alias: str | None = None

    def load(self):
        return importlib.import_module(self.module)

    @property
    def recorder(self) -> type:
        return self.load().RECORDER

    def main(self, argv: list[str] | None = None, prog: str | None = None) -> int:
        """Run its command line; ``prog`` is the command as typed (default ``python -m prefixlab record NAME``),
        which the recording stores."""
        return self.load().main(argv, prog or f"python -m prefixlab record {self.name}")

    def default_out(self) -> Path:
        """Where ``record NAME`` writes when no directory is given: a new folder under _build/recordings."""
        return REPO_ROOT / "_build" / "recordings" / f"{self.name}-{time.strftime('%Y%m%d-%H%M%S')}"

    def made(self, out: Path) -> dict[str, Path]:
        """Each shipped recording a default run reproduces -> the recording the run wrote in ``out``."""
        return {shipped: out / inside for shipped, inside in self.recordings.items()}


class UnknownExperiment(LookupError):
    pass


def chapter_packages(root: Path = CHAPTERS) -> list[str]:
    """``chapters.<chapter>.experiments`` for every chapter folder that has one, in name order."""
    if not root.is_dir():
        return []
    return [f"{root.name}.{d.name}.experiments" for d in sorted(root.iterdir())
            if (d / "experiments" / "__init__.py").is_file()]


def experiments(root: Path = CHAPTERS) -> dict[str, Experiment]:
    """Every registered experiment by name; a name registered twice is an error."""
    if str(root.parent) not in sys.path:
        sys.path.insert(0, str(root.parent))  # the chapters are not installed; they live next to prefixlab
    found: dict[str, Experiment] = {}
    for package in chapter_packages(root):
        for exp in getattr(importlib.import_module(package), "EXPERIMENTS", ()):
            if exp.name in found:
                raise ValueError(f"experiment {exp.name!r} is registered twice ({found[exp.name].module}, {exp.module})")
            found[exp.name] = exp
    return found


def get(name: str) -> Experiment:
    known = experiments()
    if name not in known:
        raise UnknownExperiment(f"no experiment {name!r}; known: {', '.join(known) or 'none'}")
    return known[name]


def by_alias(alias: str) -> Experiment:
    """The experiment an old module name (``record_...``) runs."""
    for exp in experiments().values():
        if exp.alias == alias:
            return exp
    raise UnknownExperiment(f"no experiment has the old name {alias!r}")


def run_alias(module_name: str, argv: list[str] | None = None) -> int:
    """What an old entry point ``prefixlab.<alias>`` does: run its experiment under its old name."""
    alias = module_name.rpartition(".")[2]
    return by_alias(alias).main(argv, f"python -m prefixlab.{alias}")


def check(exp: Experiment, out: Path) -> int:
    """Verify every recording a default run of ``exp`` wrote in ``out`` and compare it with the shipped one."""
    from prefixlab.recording import compare, verify

    code = 0
    for shipped, made in exp.made(out).items():
        code = verify.main([str(made)]) or code
        code = compare.main([str(RECORDINGS / shipped), str(made)]) or code
    return code


def main(argv: list[str] | None = None, prog: str = "python -m prefixlab record") -> int:
    """``record NAME [OUT [options]]``, ``record --list``, ``record --check NAME OUT``."""
    p = argparse.ArgumentParser(
        prog=prog, description="录制一个实验(对真实服务器),或列出、核对实验的录制。",
        epilog="NAME 之后的参数交给该实验自己的命令行(python -m prefixlab record NAME --help);"
               "不给 OUT 时写进 _build/recordings/NAME-<时间>。")
    p.add_argument("--list", action="store_true", help="列出所有已注册的实验和它们复现的录制")
    p.add_argument("--check", action="store_true",
                   help="不录制:对账 OUT 里的录制(verify),再和仓库里对应的录制逐请求比较(compare)")
    p.add_argument("name", nargs="?", help="实验名(见 --list)")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="OUT 和该实验的选项")
    args = p.parse_args(sys.argv[1:] if argv is None else list(argv))
    if args.list:
        for exp in experiments().values():
            old = f"; 旧命令 python -m prefixlab.{exp.alias}" if exp.alias else ""
            print(f"{exp.name:6} {exp.title} (录制: {', '.join(exp.recordings)}{old})")
        return 0
    if not args.name:
        p.error("name an experiment (python -m prefixlab record --list)")
    try:
        exp = get(args.name)
    except UnknownExperiment as err:
        p.error(str(err))
    if args.check:
        if len(args.rest) != 1:
            p.error("--check NAME OUT: name the directory the experiment recorded into")
        return check(exp, Path(args.rest[0]))
    rest = list(args.rest)
    if not rest or rest[0].startswith("-") and rest[0] not in ("-h", "--help"):
        out = exp.default_out()
        rest.insert(0, str(out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out))
    return exp.main(rest, f"{prog} {exp.name}")
