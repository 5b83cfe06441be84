"""The execution cache's key (Makefile BOOK_INPUTS) covers the benchmark results the pages read,
and not what benchmarks write for themselves (issue 38, item 5)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")

# What the tools write for themselves (benchmarks/README.md): `make bench` (bench_core.py),
# `make bench-chapters` (chapter_timings.py, with the provenance sidecar of its log), the seed
# sweeps (seed_sweep.py: one record per page in seed_sweeps/) and discrete_margins.py.
TOOL_OUTPUTS = ["latest.md", "latest.json", "chapters_quick.json", "chapters_paper.json",
                "chapters_quick.provenance.json", "chapters_paper.provenance.json",
                "discrete_margins.md", "seed_sweeps/03_small_step.md",
                "seed_sweeps/03_small_step.json", "seed_sweeps/new_page.json"]


def _make_variable(name, root=ROOT):
    out = subprocess.run(["make", "-s", "-p", "-n", "-C", str(root), "book"],
                         capture_output=True, text=True, check=False).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith(f"{name} :="))
    return line.split(":=", 1)[1].split()


def _book_hash(root):
    out = subprocess.run(["make", "-s", "-C", str(root), "--eval",
                          "print-book-hash: ; @echo $(BOOK_HASH)", "print-book-hash"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{64}", out), out
    return out


@needs_make
def test_cache_key_covers_the_results_the_pages_read():
    data = set(_make_variable("BOOK_DATA"))
    pages = [*ROOT.glob("chapters/*.md"), ROOT / "intro.md"]
    read = {m for p in pages for m in re.findall(r'"([A-Za-z0-9_]+\.(?:csv|json))"',
                                                 p.read_text())}
    on_disk = {f"benchmarks/results/{name}" for name in read
               if (ROOT / "benchmarks" / "results" / name).exists()}
    assert on_disk and on_disk == data, (on_disk ^ data)
    assert set(data) <= set(_make_variable("BOOK_INPUTS"))


@needs_make
def test_no_file_the_tools_write_is_in_the_key():
    inputs = [Path(p) for p in _make_variable("BOOK_INPUTS")]
    for name in TOOL_OUTPUTS:
        path = Path("benchmarks/results") / name
        inside = [p for p in inputs if path == p or p in path.parents]
        assert not inside, f"{path} (written by a benchmark tool) is in the cache key: {inside}"


@needs_make
def test_the_hash_ignores_tool_outputs_and_follows_the_data(tmp_path):
    """A copy of the key's inputs: appending to every file the tools write keeps BOOK_HASH;
    changing one line of a CSV a chapter reads changes it."""
    for name in ("Makefile", "intro.md", "requirements.txt"):
        shutil.copy2(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "chapters", tmp_path / "chapters",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "_build"))
    shutil.copytree(ROOT / "src" / "helpers", tmp_path / "src" / "helpers",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(RESULTS, tmp_path / "benchmarks" / "results")
    before = _book_hash(tmp_path)
    assert before == _book_hash(ROOT)                 # the copy holds every input
    for name in TOOL_OUTPUTS:
        path = tmp_path / "benchmarks" / "results" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n# appended by a benchmark run\n")
    assert _book_hash(tmp_path) == before
    data = tmp_path / "benchmarks" / "results" / "map_gap.csv"
    data.write_text(data.read_text().replace("\n", "\n0,", 1))
    assert _book_hash(tmp_path) != before
