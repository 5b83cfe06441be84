"""benchmarks/: scripts split by role (data, tools, investigations), each in the README, and
every committed result a page reads carries its provenance beside it (issue 38, item 4)."""

import datetime as dt
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
RESULTS = BENCH / "results"
ROLES = ("data", "tools", "investigations")
sys.path.insert(0, str(BENCH / "tools"))
import provenance  # noqa: E402

PAGES = [*sorted((ROOT / "chapters").glob("*.md")), ROOT / "intro.md", ROOT / "instructors.md",
         ROOT / "exam.md"]


def results_the_pages_read():
    """Every file of benchmarks/results named in a page as "<name>.csv" or "<name>.json"
    (an f-string's "{...}" matches any text: f"chapters_{scale}.json")."""
    found = set()
    for page in PAGES:
        for name in re.findall(r'"([A-Za-z0-9_{}]+\.(?:csv|json))"', page.read_text()):
            found.update(RESULTS.glob(re.sub(r"\{[^}]*\}", "*", name)))
    return sorted(p for p in found if not p.name.endswith(".provenance.json"))


def test_the_pages_read_the_known_results():
    names = {p.name for p in results_the_pages_read()}
    assert {"small_step_gain_d.csv", "large_step_validation.csv", "large_step_d_dependence.csv",
            "finite_width_validation.csv", "map_gap.csv", "figure1_gaussian_gap.csv",
            "chapters_quick.json"} <= names, names


@pytest.mark.parametrize("result", results_the_pages_read(), ids=lambda p: p.name)
def test_every_result_a_page_reads_has_its_provenance(result):
    side = provenance.sidecar_path(result)
    assert side.is_file(), f"{result.name} has no {side.name}: run the script that writes it"
    data = json.loads(side.read_text(encoding="utf-8"))
    assert set(provenance.FIELDS) <= set(data), set(provenance.FIELDS) - set(data)
    assert all(isinstance(data[k], str) and data[k].strip() for k in provenance.FIELDS), data
    assert data["result"] == result.name
    script = ROOT / data["script"]
    assert script.is_file() and script.parent.parent == BENCH, data["script"]
    assert data["script"] in data["command"]
    assert re.fullmatch(r"[0-9a-f]{7,40}(-dirty)?", data["commit"]), data["commit"]
    dt.datetime.fromisoformat(data["date"])
    assert "\n" not in data["description"]
    assert data["sha256"] == provenance.sha256(result), (
        f"{side.name} describes another version of {result.name}: run the script that writes "
        "it, or `python benchmarks/tools/provenance.py` (see its docstring)")


def test_each_script_has_one_role_and_a_line_in_the_readme():
    assert not list(BENCH.glob("*.py")), "a script outside data/, tools/ or investigations/"
    readme = (BENCH / "README.md").read_text(encoding="utf-8")
    for role in ROLES:
        for script in sorted((BENCH / role).glob("*.py")):
            assert f"{role}/{script.name}" in readme, f"benchmarks/README.md: {role}/{script.name}"


def test_every_data_script_writes_a_result_a_page_reads_with_its_provenance():
    written_by = {json.loads(provenance.sidecar_path(r).read_text())["script"]
                  for r in results_the_pages_read()}
    for script in sorted((BENCH / "data").glob("*.py")):
        rel = script.relative_to(ROOT).as_posix()
        assert rel in written_by, f"{rel} writes nothing a page reads: not a data script"
        assert "record(" in script.read_text(), f"{rel} does not write its provenance"


def test_record_writes_a_sidecar_and_keeps_it_while_the_result_is_unchanged(tmp_path):
    result = tmp_path / "runs.csv"
    result.write_text("a,b\n1,2\n")
    script = BENCH / "tools" / "provenance.py"
    side = provenance.record(result, script, "One test table.", command="python x.py",
                             commit="abc1234", date="2026-01-01T00:00:00+00:00")
    assert side == tmp_path / "runs.provenance.json"
    data = json.loads(side.read_text())
    assert data == {"result": "runs.csv", "script": "benchmarks/tools/provenance.py",
                    "command": "python x.py", "commit": "abc1234",
                    "date": "2026-01-01T00:00:00+00:00", "description": "One test table.",
                    "sha256": provenance.sha256(result)}
    provenance.record(result, script, "One test table.", commit="def5678")
    assert json.loads(side.read_text())["commit"] == "abc1234"      # the same file: kept
    result.write_text("a,b\n1,3\n")
    provenance.record(result, script, "One test table.", commit="def5678")
    assert json.loads(side.read_text())["commit"] == "def5678"      # a new result: rewritten
    with pytest.raises(ValueError, match="result"):
        provenance.record(tmp_path / "missing.csv", script, "x")
    with pytest.raises(ValueError, match="script"):
        provenance.record(result, tmp_path / "runs.csv", "x")
    with pytest.raises(ValueError, match="description"):
        provenance.record(result, script, "two\nlines")
