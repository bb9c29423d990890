"""scripts/count_compared_outputs.py re-measures issue 42's audit: at the audited tree it finds the audit's counts."""
import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("count_compared_outputs", ROOT / "scripts" / "count_compared_outputs.py")
counts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(counts)


def _has_commit(rev: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True).returncode == 0


@pytest.mark.skipif(not _has_commit(counts.AUDIT), reason="a shallow clone without the audited commit")
def test_the_audited_tree_gives_the_audits_counts():
    # ../shared/reviews/tests.md (read at 284be56): 36 figure outputs, none compared; 2 HTML-only outputs,
    # neither compared; A3·1's glue cell kept 17 glued values out of comparison.
    t = counts.count(counts.skip_list_at(counts.AUDIT), counts.AUDIT)
    assert (t["figures"], t["figures_compared"], t["numbers_compared"]) == (36, 0, 0)
    assert (t["html_only"], t["html_only_compared"]) == (2, 0)
    assert t["glued_excluded"] == 17


def test_today_every_excluded_glued_value_is_in_a3_1s_unstable_cell():
    excluded = []
    t = counts.count(counts.SKIP_MIME_TYPES, None, excluded)
    glue_cells = [(path, index) for path, index, what in excluded if "glued" in what]
    assert [path for path, _ in glue_cells] == ["book/a3/a3-1-paths-and-commands.ipynb"]
    cell = json.loads((ROOT / glue_cells[0][0]).read_text(encoding="utf-8"))["cells"][glue_cells[0][1]]
    assert "".join(cell["source"]).startswith("# Not compared (nbval-ignore-output): measured")  # says why
    assert 0 < t["glued_excluded"] < 17
    assert t["html_only_compared"] == t["html_only"]
