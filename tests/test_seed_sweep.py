"""benchmarks/seed_sweep.py --combine: a page re-swept later replaces its earlier runs."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import seed_sweep  # noqa: E402


def _log(path, rows):
    path.write_text(json.dumps({"commit": "abc", "started": "now", "cores": 2, "rows": rows}))
    return path


def test_a_later_sweep_replaces_an_earlier_failure(tmp_path):
    old = _log(tmp_path / "old.json", [
        {"chapter": "a.md", "seed": 0, "status": "ok", "seconds": 1.0},
        {"chapter": "b.md", "seed": 0, "status": "failed (exit 1)", "seconds": 1.0,
         "error": "AssertionError"}])
    new = _log(tmp_path / "new.json", [
        {"chapter": "b.md", "seed": 0, "status": "ok", "seconds": 2.0}])
    assert seed_sweep.combine([old, new], tmp_path / "out.md") == 0
    text = (tmp_path / "out.md").read_text()
    assert "2 of 2 runs passed" in text and "FAIL" not in text
    assert seed_sweep.combine([new, old], tmp_path / "out.md") == 1
    assert "1 of 2 runs passed" in (tmp_path / "out.md").read_text()
