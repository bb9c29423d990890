#!/usr/bin/env python3
"""Put the agent picture at the start of every written lesson, and refresh its stored output.

    python scripts/agent_picture_cells.py            # every lesson notebook in _toc.yml
    python scripts/agent_picture_cells.py a6-2 a6-3  # only these lessons

For each lesson with a notebook (``stem`` in data/agent-picture.yml, page from _toc.yml):
if the notebook has no cell calling ``agent_picture("<id>")``, one short markdown line and one
code cell (input hidden) are inserted right after the first cell (the title and the lesson's
question). Then only that cell's output is rewritten, as the kernel would store it, from the
component itself. No other cell is executed or changed, so the data file can change without
re-executing whole notebooks; nbval then proves the stored output matches a fresh run.
"""
from __future__ import annotations

import argparse
import sys

import nbformat
from IPython.core.formatters import DisplayFormatter

from prefixlab.paths import REPO_ROOT
from prefixlab.presenting.agent_picture import agent_picture, load_picture, toc_pages

INTRO = ("**从已有出发。** 下面是 agent 的一轮循环:亮着的环节是前面的课已经搭好的,标着「你在这里」的是这一课要加的"
         "(或要再动一动的),虚线的还在后面。点一个环节,看它是哪一课、为了回答什么问题加进来的。")
TAGS = ["remove-input"]  # the call is plumbing; a "显示代码" toggle above the first picture would only distract


def call_source(lesson_id: str) -> str:
    return f'from prefixlab.presenting.agent_picture import agent_picture\n\nagent_picture("{lesson_id}")'


def picture_cell_index(nb, lesson_id: str) -> int | None:
    needle = f'agent_picture("{lesson_id}")'
    return next((i for i, c in enumerate(nb.cells) if c.cell_type == "code" and needle in c.source), None)


# nbval only compares cells that were run (a count is set); the counts of the other cells stay as
# they are, so the picture's cell takes the first one.
EXECUTION_COUNT = 1


def stored_output(lesson_id: str) -> dict:
    """The execute_result a kernel stores for the cell's last expression."""
    data, metadata = DisplayFormatter().format(agent_picture(lesson_id))
    return nbformat.v4.new_output("execute_result", data=data, metadata=metadata,
                                  execution_count=EXECUTION_COUNT)


def update(lesson_id: str, notebook) -> str:
    nb = nbformat.read(notebook, as_version=4)
    index = picture_cell_index(nb, lesson_id)
    action = "refreshed"
    if index is None:
        intro = nbformat.v4.new_markdown_cell(INTRO, id=f"agent-picture-intro-{lesson_id}")
        code = nbformat.v4.new_code_cell(call_source(lesson_id), id=f"agent-picture-{lesson_id}",
                                         metadata={"tags": list(TAGS)})
        nb.cells[1:1] = [intro, code]
        index, action = 2, "inserted"
    nb.cells[index].metadata["tags"] = list(TAGS)
    nb.cells[index].outputs = [stored_output(lesson_id)]
    nb.cells[index].execution_count = EXECUTION_COUNT
    nbformat.validate(nb)
    nbformat.write(nb, notebook)
    return action


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", help="lesson ids (default: every lesson with a notebook)")
    args = parser.parse_args(argv)
    pages = toc_pages()
    written = {l.id: l for l in load_picture().lessons if l.stem}
    for lesson_id in args.lessons or list(written):
        lesson = written.get(lesson_id)
        if lesson is None or lesson.stem not in pages:
            print(f"agent_picture_cells: {lesson_id!r} is not a written lesson in _toc.yml", file=sys.stderr)
            return 1
        notebook = REPO_ROOT / f"{pages[lesson.stem]}.ipynb"
        print(f"{update(lesson_id, notebook)} {notebook.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
