"""The execution cache's key (Makefile BOOK_INPUTS) covers the benchmark results the pages read,
and not what benchmarks write for themselves (issue 38, item 5)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _make_variable(name):
    out = subprocess.run(["make", "-s", "-p", "-n", "-C", str(ROOT), "book"],
                         capture_output=True, text=True, check=False).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith(f"{name} :="))
    return line.split(":=", 1)[1].split()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_cache_key_covers_the_results_the_pages_read():
    data = set(_make_variable("BOOK_DATA"))
    pages = [*ROOT.glob("chapters/*.md"), ROOT / "intro.md"]
    read = {m for p in pages for m in re.findall(r'"([A-Za-z0-9_]+\.(?:csv|json))"',
                                                 p.read_text())}
    on_disk = {f"benchmarks/results/{name}" for name in read
               if (ROOT / "benchmarks" / "results" / name).exists()}
    assert on_disk and on_disk == data, (on_disk ^ data)
    assert "benchmarks/results/latest.json" not in data          # make bench writes it
    assert not any("seed_sweep" in f for f in data)
    assert set(data) <= set(_make_variable("BOOK_INPUTS"))
