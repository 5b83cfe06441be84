"""benchmarks/: scripts split by role (data, tools, investigations), each in the README, and
every committed result a page reads carries its provenance beside it (issue 38, item 4)."""

import ast
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


# --------------------------------------------------------------------------- one run, named seeds
REMOVED_MODULES = {"helpers.simulate", "helpers.multi_index", "helpers.two_steps",
                   "helpers.first_step"}
REMOVED_NAMES = {"simulate_etas", "same_data_risks", "simulate_ck_and_ge", "spike_measurements",
                 "gradient_singular_values", "population_model_risks", "risks_over_steps",
                 "run_first_step", "first_step_from_streams", "FirstStep", "spawn_streams",
                 "STREAMS", "book_seed", "BOOK_SETTINGS", "ByScale", "singular_values",
                 "top_singular_pair", "top_singular"}
HAND_MADE = {"default_rng", "SeedSequence"}


def _offences(tree):
    """What a script's code (not its docstrings) does outside the one run and its named seeds:
    a removed module or name, a hand-made generator or SeedSequence, ``SEED + k``, a seed
    written as a literal list, or a step size converted from eta_scale by hand."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in REMOVED_MODULES:
            yield node.lineno, f"from {node.module} import"
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name in REMOVED_MODULES or alias.name in REMOVED_NAMES:
                    yield node.lineno, f"import {alias.name}"
        name = (node.attr if isinstance(node, ast.Attribute)
                else node.id if isinstance(node, ast.Name) else None)
        if name in REMOVED_NAMES or name in HAND_MADE:
            yield node.lineno, name
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
                f"{node.value.id}.{node.attr}" in REMOVED_MODULES):
            yield node.lineno, f"{node.value.id}.{node.attr}"
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
                and isinstance(node.left, ast.Name) and "SEED" in node.left.id
                and isinstance(node.right, ast.Constant)):
            yield node.lineno, f"{node.left.id} + {node.right.value}"
        if isinstance(node, ast.keyword) and node.arg in ("seed", "seeds") and isinstance(
                node.value, ast.List | ast.Tuple):
            yield node.lineno, f"{node.arg}=[...]"
        if isinstance(node, ast.keyword) and node.arg in ("eta", "etas") and any(
                isinstance(c, ast.Call) and getattr(c.func, "attr", getattr(c.func, "id", ""))
                == "sqrt" for c in ast.walk(node.value)):
            yield node.lineno, f"{node.arg}=... sqrt(N) (eta_scale converted by hand)"
        if isinstance(node, ast.List | ast.Tuple) and isinstance(node.ctx, ast.Load) and any(
                isinstance(e, ast.Name) and "SEED" in e.id for e in node.elts):
            yield node.lineno, "[..SEED..]"


def test_the_scripts_draw_through_the_one_run_with_named_seeds():
    # issue 46: every seeded simulation goes through helpers.run (or a preset of it), every
    # stream is keyed by name; no SEED + k, no seed lists, no SeedSequence or default_rng, no
    # eta = eta_scale sqrt(N) by hand (the run takes eta_scale).
    bad = []
    for script in sorted(BENCH.rglob("*.py")):
        tree = ast.parse(script.read_text(encoding="utf-8"))
        bad += [f"{script.relative_to(ROOT)}:{line}: {what}" for line, what in _offences(tree)]
    assert not bad, "\n".join(bad)


def test_the_offence_finder_has_teeth():
    code = ("import numpy as np\nfrom helpers.simulate import simulate_etas\n"
            "rng = np.random.default_rng([1, 2])\nx = helpers.spawn_streams(SEED + 1)\n"
            "helpers.run(seed=[3, d, k])\nf(d, [BASE_SEED, d, k])\n"
            "helpers.simulate_one_step(eta=e * math.sqrt(N))\n")
    found = {what for _, what in _offences(ast.parse(code))}
    assert {"from helpers.simulate import", "import simulate_etas", "default_rng", "spawn_streams",
            "SEED + 1", "seed=[...]", "[..SEED..]",
            "eta=... sqrt(N) (eta_scale converted by hand)"} <= found, found
