"""benchmarks/tools/seed_sweep.py: one record per page; a page re-swept later replaces its
earlier runs."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "tools"))
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
    assert seed_sweep.combine([old, new], tmp_path / "in_order") == 0
    text = (tmp_path / "in_order" / "b.md").read_text()
    assert "1 of 1 seeds pass" in text and "AssertionError" in text   # the old run is kept
    assert sorted(p.name for p in (tmp_path / "in_order").iterdir()) == [
        "a.json", "a.md", "b.json", "b.md"]
    assert seed_sweep.combine([new, old], tmp_path / "reversed") == 1
    assert "0 of 1 seeds pass" in (tmp_path / "reversed" / "b.md").read_text()


def test_a_sweep_writes_one_record_per_page(tmp_path, monkeypatch):
    def fake_run(md, limit, scale, env=None, capture=False):
        ok = not (md.name == "b.md" and env["BOOK_SEED"] == "1")
        return {"chapter": md.name, "scale": scale, "status": "ok" if ok else "failed (exit 1)",
                "seconds": 1.0, **({} if ok else {"error": "AssertionError: claim"})}

    monkeypatch.setattr(seed_sweep, "run_chapter", fake_run)
    pages = [tmp_path / "a.md", tmp_path / "b.md"]
    out = tmp_path / "records"
    assert seed_sweep.main([str(p) for p in pages] + ["--seeds", "0-2", "--out", str(out)]) == 1
    record = json.loads((out / "b.json").read_text())
    (sweep,) = record["sweeps"]
    assert [r["seed"] for r in sweep["rows"]] == [0, 1, 2] and sweep["scale"] == "quick"
    assert "--seeds 0-2" in sweep["command"]
    text = (out / "b.md").read_text()
    assert "2 of 3 seeds pass" in text and "BOOK_SEED=1" in text and "claim" in text
    assert "3 of 3 seeds pass" in (out / "a.md").read_text()
    assert seed_sweep.RECORDS == ROOT / "benchmarks" / "results" / "seed_sweeps"


def test_seed_text_inverts_seed_range():
    assert seed_sweep.seed_text([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert seed_sweep.seed_range(seed_sweep.seed_text([3, 4, 9])) == [3, 4, 9]
