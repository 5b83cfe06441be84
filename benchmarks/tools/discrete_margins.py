"""The margins of the book's discrete answers (issue 30): how far each is from changing.

A discrete answer computed from floats (an exponent, an outlier count, a set of map cells, a
best point of a grid, a yes/no column) must not hang on the last bits of those floats, which
differ between CPUs.  This script prints, for each, its margin:

* library answers, computed here: the exponents of the test table (the conditional energies
  V_j on both sides of ``tol``, exact labels and labels moved by a relative 1e-14), ``is_odd``
  of every named activation, and the minimiser of ``tau_star`` for erf/erf;
* chapter answers: every ``margin_*`` variable that a chapter's hidden checks compute
  (``helpers.checks.margins``; asserted, except those ending in ``_shown``); each chapter is run as
  a script (quick scale, ``BOOK_SEED`` from the environment, and the Makefile's
  ``BOOK_STRICT=1`` unless the environment sets it: the book's setting) with a last cell that
  prints them.

Usage: ``python benchmarks/tools/discrete_margins.py [chapters/NN_x.md ...]`` (default: every
chapter with a ``margin_`` variable).  Writes ``benchmarks/results/discrete_margins.md``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from chapter_timings import BOOK_ENV  # noqa: E402  (the Makefile's variables)

EPILOGUE = '''
import json as _json
print("MARGINS " + _json.dumps({k: float(v) for k, v in dict(globals()).items()
                                if k.startswith("margin_") and not callable(v)}))
'''


# Discrete decisions audited that need no margin, and why (issue 30, item 2).
BY_CONSTRUCTION = [
    ("generative_exponent's bin edges, floor(weight before a group x bins)",
     "a group moving to the next bin moves V_j by O(1/bins) where V_j >= 0.26, and keeps the "
     "zero degrees at zero: each group holds the symmetric points together"),
    ("generative_exponent's stable sort within a tie group",
     "the order inside a group sets no bin: the group's first member does"),
    ("selections such as eta_scale == 6.0, MAP_ETA.index(e)",
     "lookups by a value copied from the grid, never computed: exact on every machine"),
    ("n = round(psi1 d), N = round(psi2 d)",
     "Python floats: one IEEE product, the same on every machine"),
    ("np.sign of Gaussian draws (the +-1 layer), of diag(R) (teachers.sample_directions)",
     "no draw at 0 to the last bit; abs(R_ii) is of order sqrt(d)"),
    ("tables: the digits shown from floor(log10(se))",
     "display only; a standard error at an exact power of 10 would show one digit more"),
    ("tau_star's argmin over its grid for an odd pair (kappa or -kappa)",
     "the chapters report abs(kappa*), the same for both"),
]


def library_rows() -> list[tuple[str, str, str]]:
    from test_exponents import KNOWN, _perturbed

    from helpers import ACTIVATION_NAMES, get_activation
    from helpers.activations import is_odd
    from helpers.theory import exponents, tau_star

    rows = []
    below, above, info_below, info_above = 0.0, math.inf, 0.0, math.inf
    for link, k, info, gen, _deg in KNOWN:
        for g in (link, _perturbed(link, k)):
            v = list(exponents._conditional_energies(g, k, gen))
            energy, second = exponents._coefficient_energy(g, k, info)
            below, above = max(below, *v[:gen - 1], 0.0), min(above, v[gen - 1])
            share = energy / second
            info_below = max(info_below, *share[1:info], 0.0)
            info_above = min(info_above, share[info])
    rows.append(("generative_exponent (8 links of the tests, exact and moved labels)",
                 f"V_j below the answer <= {below:.1e}, at it >= {above:.2f}; tol 1e-6",
                 "before: exact ties only; V_1 of He4 = 5.2e-06 > tol on this CPU (answer 1)"))
    rows.append(("information_exponent (the same links)",
                 f"shares below the answer <= {info_below:.1e}, at it >= {info_above:.2f}; "
                 "tol 1e-10", "unchanged in kind (a tolerance, 20 decades of room)"))
    odd, even = [], []
    for name in ACTIVATION_NAMES:
        act = get_activation(name)
        ratio = act.even_part_norm_sq / max(act.second_moment, 1e-300)
        (odd if is_odd(act) else even).append((ratio, name))
    rows.append(("is_odd (E even^2 / E sigma^2 against 1e-16)",
                 f"odd: <= {max(odd)[0]:.1e} ({max(odd)[1]}); "
                 f"not odd: >= {min(even)[0]:.2f} ({min(even)[1]})", "unchanged"))
    _, kappa = tau_star("erf", "erf")
    err = abs(kappa**2 - 3.0)
    rows.append(("tau_star(erf, erf): kappa*^2 in the docstring example",
                 f"abs(kappa*^2 - 3) = {err:.1e}; rounded to 6 digits: boundary 5e-7 away",
                 "before: rounded to 8 digits, 2.99999999 (boundary 5e-9 < error)"))
    return rows


def chapter_margins(md: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / (md.stem + ".py")
        subprocess.run([sys.executable, "-m", "jupytext", "--quiet", "--to", "py", str(md),
                        "-o", str(script)], check=True)
        script.write_text(script.read_text() + EPILOGUE)
        env = {**BOOK_ENV, **os.environ, "MPLBACKEND": "Agg", "BOOK_PROGRESS": "0"}
        out = subprocess.run([sys.executable, str(script)], cwd=md.parent, env=env,
                             capture_output=True, text=True, check=False)
    line = [x for x in out.stdout.splitlines() if x.startswith("MARGINS ")]
    if out.returncode != 0 or not line:
        raise RuntimeError(f"{md.name} failed:\n{out.stderr[-2000:]}")
    return json.loads(line[-1][len("MARGINS "):])


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    chapters = [Path(a).resolve() for a in args] or [
        p for p in sorted((ROOT / "chapters").glob("*.md")) if "margin_" in p.read_text()]
    lines = ["# Margins of the book's discrete answers", "",
             "Written by `benchmarks/tools/discrete_margins.py` "
             f"(BOOK_SEED={os.environ.get('BOOK_SEED', '0')}, quick scale; numpy "
             f"{np.__version__}). The convention: CONTRIBUTING.md. A margin is the relative "
             "distance of the value nearest to its decision boundary; the chapters assert "
             "each is above `helpers.checks.margins.FLOAT_MARGIN` = 1e-6.", "",
             "## Library answers", "", "| answer | margin | before issue 30 |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in library_rows()]
    lines += ["", "## Audited, no margin needed", "", "| decision | why |", "|---|---|"]
    lines += [f"| {a} | {b} |" for a, b in BY_CONSTRUCTION]
    lines += ["", "## Chapter answers", "",
              "Variables ending in `_shown` belong to answers the chapter only shows (printed "
              "here, not asserted); the others are asserted > 1e-6 by the hidden checks.", "",
              "| chapter | variable | margin | asserted |", "|---|---|---|---|"]
    for md in chapters:
        for name, value in sorted(chapter_margins(md).items()):
            asserted = "no (shown)" if name.endswith("_shown") else "yes"
            lines.append(f"| {md.stem} | `{name}` | {value:.3g} | {asserted} |")
            print(md.stem, name, f"{value:.3g}", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "discrete_margins.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
