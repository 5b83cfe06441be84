"""Benchmark of the simulation core at the paper's Figure 3(a) setting (``make bench``).

One run = ``helpers.simulate_one_step`` (the book's one run, ``helpers.runs``, with one step
size and the risk): teacher, data, student, first step, fresh features, ridge for 8
penalties and the test risk: d = 512, psi1 = 5 (n = 2560), psi2 = 2 (N = 1024), tanh
student, SoftPlus teacher, noise 0.25, default n_test = n.  Every draw comes from a stream of
``SEED = helpers.named_seed(0, "bench_core")`` keyed by what it is for (:func:`run_seed`).
In one process, back to back, it measures

1. the run against its matrix-product bound: the time the run's essential products take
   on this machine (X W0, the gradient's X^T M, X~ W1, the Gram matrix F^T F, the test
   features, one N x N decomposition: the tridiagonal reduction the run uses), each timed
   alone with the same shapes and dtypes, through NumPy's BLAS and through SciPy's (the
   pip wheels bundle one each; the run multiplies with NumPy and solves with SciPy's
   LAPACK): the faster of the two counts, so the bound is the stricter one.  Each
   library's products are timed together after a pause (``POOL_SLEEP_S``), so that they
   do not compete with the other library's idle-spinning threads;
2. the ratio to a plain baseline on the same features: scikit-learn ``Ridge(alpha=n lam,
   fit_intercept=False)`` fitted once per lambda, test features computed once;
3. peak memory of one run (a fresh process; max RSS and the arrays' tracemalloc peak);
4. a parallel sweep (joblib, loky workers with capped BLAS) against a serial one;
5. the accuracy of float32 where the core allows it, against float64;
6. ``helpers.theory.small_step_risk`` for 100 values of eta, when it exists.

Every time is the minimum over ``--repeat`` repetitions (the machine is shared, so the
minimum is the least noisy estimate).  Results go to ``benchmarks/results/latest.{md,json}``.
Usage: ``python benchmarks/tools/bench_core.py [--repeat 7] [--quick]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.linalg import blas as fblas
from scipy.linalg import lapack
from threadpoolctl import threadpool_info, threadpool_limits

import helpers
from helpers._validation import problem_sizes
from helpers.activations import as_student, as_teacher
from helpers.experiments import point_seed
from helpers.ridge import ridge_path
from helpers.risk import prediction_risk
from helpers.runs import default_n_test, simulate_one_step

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results"

SETTING = dict(d=512, psi1=5.0, psi2=2.0, eta=1.0, noise=0.25)
STUDENT, TEACHER = "tanh", "softplus"
LAMBDAS = np.logspace(-4, 0, 8)
TARGETS = dict(bound_ratio=1.5, baseline_speedup=3.0, peak_gb=1.5, small_step_s=1.0)
#: Every draw of the benchmark comes from a stream of this seed, keyed by what it is for.
SEED = helpers.named_seed(0, "bench_core")


def run_seed(what: str, k: int):
    """The seed of the k-th run of one part of the benchmark (``what``)."""
    return helpers.named_seed(SEED, what, f"{k}")


def best_of(fn, repeat: int) -> float:
    """Minimum wall time of ``repeat`` calls of ``fn``."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# --------------------------------------------------------------------------- 1. the bound
def _fortran(M):
    """``(array, trans)`` with ``op(array) = M.T`` and ``array`` F-contiguous (no copy)."""
    return (M.T, False) if M.flags.c_contiguous else (M, True)


def matmul(A, B):
    """``A @ B`` through SciPy's BLAS (gemm), as a C-ordered array."""
    gemm = fblas.sgemm if A.dtype == np.float32 else fblas.dgemm
    a, ta = _fortran(B)
    b, tb = _fortran(A)
    return gemm(1.0, a, b, trans_a=ta, trans_b=tb).T


def gram(F):
    """Lower triangle of ``F^T F`` through SciPy's BLAS (syrk)."""
    a, trans = _fortran(F)
    return fblas.dsyrk(1.0, a, trans=int(not trans), lower=1)


def bound_parts(d, n, N, n_test, *, mixed: bool, rng) -> dict:
    """Callables for the run's essential products, on random matrices of the run's shapes."""
    f32 = np.float32 if mixed else np.float64
    X = rng.standard_normal((n, d))
    W = rng.standard_normal((d, N)) / np.sqrt(d)
    M = rng.standard_normal((n, N))
    Xs, Ws = X.astype(f32), W.astype(f32)
    Xt = rng.standard_normal((n_test, d)).astype(f32)
    F = np.tanh(M)
    S = F.T @ F / n
    lwork = int(lapack.dsytrd_lwork(N, lower=1)[0])
    mm = matmul
    # library -> name -> the product through that library's BLAS
    return {
        "numpy": {
            "X W0": lambda: X @ W,
            "X^T M (gradient)": lambda: X.T @ M,
            "X~ W1 (features)": lambda: Xs @ Ws,
            "F^T F (Gram, syrk)": lambda: F.T @ F,
            "test features": lambda: Xt @ Ws,
        },
        "scipy": {
            "X W0": lambda: mm(X, W),
            "X^T M (gradient)": lambda: mm(X.T, M),
            "X~ W1 (features)": lambda: mm(Xs, Ws),
            "F^T F (Gram, syrk)": lambda: gram(F),
            "test features": lambda: mm(Xt, Ws),
            "N x N tridiagonal reduction": lambda: lapack.dsytrd(S, lower=1, lwork=lwork),
        },
    }


# After its last call, an OpenBLAS pool keeps spinning for about 0.1 s; a product timed in
# the other library meanwhile competes with it.  The bound's products are timed library by
# library, each group after a pause that lets the other pool fall asleep.
POOL_SLEEP_S = 0.3


# --------------------------------------------------------------------------- 2. the baseline
def stage_inputs(seed):
    """The run's draws (:func:`helpers.simulate_one_step`), its ridge set and features."""
    d, n, N = problem_sizes(SETTING["d"], SETTING["psi1"], SETTING["psi2"])
    res = simulate_one_step(STUDENT, TEACHER, lam=LAMBDAS, seed=seed, **SETTING)
    Xr, yr = res.run.ridge_data()
    F = as_student(STUDENT)(Xr @ res.W1)
    return res, F, yr, n


def fast_stage(res, F, yr, n_test):
    """Ridge for every lambda (:func:`helpers.ridge_path`) and the risk on the run's test
    points, drawn afresh from its ``test`` stream (as the baseline draws them)."""
    B = ridge_path(F, yr, LAMBDAS)
    return prediction_risk(res.W1, B, STUDENT, TEACHER, res.beta, n_test=n_test,
                           rng=res.run.rng("test"))[0]


def baseline_stage(res, F, yr, n_test):
    """scikit-learn Ridge once per lambda; test features computed once; plain risk."""
    from sklearn.linear_model import Ridge

    n = F.shape[0]
    models = [Ridge(alpha=n * lam, fit_intercept=False).fit(F, yr) for lam in LAMBDAS]
    Xt = res.run.rng("test").standard_normal((n_test, res.W1.shape[0]))
    Ft = as_student(STUDENT)(Xt @ res.W1)
    target = as_teacher(TEACHER)(Xt @ res.beta)
    return np.array([np.mean((m.predict(Ft) - target) ** 2) for m in models])


def step_and_features(seed):
    """The float64 step and ridge features (shared by the baseline's full run): the run's
    draws (:func:`helpers.draw`) and sigma(X~ W1) on its ridge set."""
    r = helpers.draw(student=STUDENT, teacher=TEACHER, seed=seed, **SETTING)
    Xr, yr = r.ridge_data()
    return r, r.student(Xr @ r.W1), yr


# --------------------------------------------------------------------------- 3. memory
_MEM_SNIPPET = """
import resource, tracemalloc, json, numpy as np
from helpers import named_seed, simulate_one_step
kw = json.loads({kw!r})
lam = np.logspace(-4, 0, 8)
seed = named_seed(0, "bench_core", "memory")
simulate_one_step('tanh', 'softplus', lam=lam, seed=named_seed(seed, "0"), **kw)
tracemalloc.start()
simulate_one_step('tanh', 'softplus', lam=lam, seed=named_seed(seed, "1"), **kw)
peak = tracemalloc.get_traced_memory()[1]
print(json.dumps(dict(maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      arrays_peak=peak)))
"""


def peak_memory(precision: str) -> dict:
    kw = json.dumps({**SETTING, "precision": precision})
    out = subprocess.run([sys.executable, "-c", _MEM_SNIPPET.format(kw=kw)], check=True,
                         capture_output=True, text=True).stdout
    rec = json.loads(out.strip().splitlines()[-1])
    return {"max_rss_gb": rec["maxrss_kb"] / 2**20, "arrays_peak_gb": rec["arrays_peak"] / 2**30}


# --------------------------------------------------------------------------- 4. sweeps
def _sweep_run(seed, psi1):
    r = simulate_one_step(STUDENT, TEACHER, d=256, psi1=psi1, psi2=2.0, lam=LAMBDAS,
                          eta=1.0, noise=0.25, seed=seed)
    return {"risk": float(r.risk[0])}


def _unlimited(task):  # oversubscribed reference: every worker keeps all BLAS threads
    seed, psi1 = task
    return _sweep_run(seed, psi1)


def sweep_speedup(repeat: int) -> dict:
    from joblib import Parallel, delayed, parallel_config

    grid, runs = {"psi1": [2.0, 5.0]}, 6
    seed = helpers.named_seed(SEED, "sweep")
    kw = dict(runs=runs, seed=seed, progress=False)
    helpers.sweep(_sweep_run, grid, n_jobs=-1, **kw)  # start the worker pool once
    tasks = [(point_seed(seed, {"psi1": p}, r), p)   # the sweep's own seeds
             for p in grid["psi1"] for r in range(runs)]
    t_serial = best_of(lambda: helpers.sweep(_sweep_run, grid, n_jobs=1, **kw), repeat)
    t_par = best_of(lambda: helpers.sweep(_sweep_run, grid, n_jobs=-1, **kw), repeat)
    cores = helpers.config.cpu_count()
    workers = min(cores, len(tasks))
    blas = max(1, cores // workers)  # what joblib's loky backend gives each worker
    with warnings.catch_warnings(), parallel_config(backend="loky", inner_max_num_threads=cores):
        warnings.simplefilter("ignore")
        t_over = best_of(lambda: Parallel(n_jobs=workers)(
            delayed(_unlimited)(t) for t in tasks), repeat)
    return {"tasks": len(tasks), "d": 256, "workers": workers, "blas_per_worker": blas,
            "serial_s": t_serial, "parallel_s": t_par, "parallel_unlimited_blas_s": t_over,
            "speedup": t_serial / t_par}


# --------------------------------------------------------------------------- 5. accuracy
def _float32_ridge_risk(res, lam):
    """Risk when the Gram matrix and its solves are float32 too (what we do not ship), on
    the run's ridge set and test points."""
    Xr, yr = res.run.ridge_data()
    F = as_student(STUDENT)(Xr @ res.W1).astype(np.float32)
    n32 = np.float32(res.n)
    s, V = np.linalg.eigh(F.T @ F / n32)
    c = V.T @ (F.T @ yr.astype(np.float32) / n32)
    B = V @ (c[:, None] / (s[:, None] + lam.astype(np.float32)[None, :]))
    return prediction_risk(res.W1, B.astype(float), STUDENT, TEACHER, res.beta,
                           n_test=default_n_test(res.n), rng=res.run.rng("test"))[0]


def float32_accuracy(runs: int = 3) -> dict:
    """max |risk(float32 variant) - risk(float64)| in units of the risk's Monte-Carlo SE.

    Two settings: Figure 3(a) (n = 2.5 N, well conditioned) and the interpolation threshold
    n = N (d = 256, psi1 = psi2 = 2) with penalties down to 1e-6, where the ridge systems are
    ill-conditioned: there float32 in the Gram matrix and the solves is visible.
    """
    thr = dict(SETTING, d=256, psi1=2.0, psi2=2.0)
    lam_thr = np.logspace(-6, 0, 7)
    out = {}
    for label, kw, lam in [("Figure 3(a), 8 lambdas in [1e-4, 1]", SETTING, LAMBDAS),
                           ("n = N = 512, 7 lambdas in [1e-6, 1]", thr, lam_thr)]:
        mixed, full32 = [], []
        for k in range(runs):
            seed = run_seed("accuracy", k)
            ref = simulate_one_step(STUDENT, TEACHER, lam=lam, seed=seed, **kw)
            mix = simulate_one_step(STUDENT, TEACHER, lam=lam, seed=seed, precision="mixed",
                                    **kw)
            mixed.append(np.max(np.abs(mix.risk - ref.risk) / ref.risk_se))
            r32 = _float32_ridge_risk(ref, lam)
            full32.append(np.max(np.abs(r32 - ref.risk) / ref.risk_se))
        out[f"{label}: precision='mixed' (shipped; X~W1 and test features float32)"] = \
            float(max(mixed))
        out[f"{label}: Gram matrix and solves in float32 too (not shipped)"] = \
            float(max(full32))
    return out


# --------------------------------------------------------------------------- 6. theory
def small_step_timing(repeat: int) -> dict:
    fn = getattr(helpers.theory, "small_step_risk", None)
    if fn is None:
        return {"status": "not available (helpers.theory.small_step_risk missing)"}
    etas = np.linspace(0.0, 4.0, 100)
    kw = dict(psi1=SETTING["psi1"], psi2=SETTING["psi2"], lam=1e-4, noise=SETTING["noise"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(STUDENT, TEACHER, eta=etas, **kw)
            mode = "one call, eta array of 100"
            t = best_of(lambda: fn(STUDENT, TEACHER, eta=etas, **kw), repeat)
        except (ValueError, TypeError):
            mode = "100 calls, scalar eta"
            t = best_of(lambda: [fn(STUDENT, TEACHER, eta=float(e), **kw) for e in etas],
                        max(1, repeat // 2))
    return {"status": "measured", "mode": mode, "seconds": t}


# --------------------------------------------------------------------------- main
def core_timings(threads: int, repeat: int) -> dict:
    """Run vs bound and fast vs baseline, every time with ``threads`` BLAS threads."""
    d, n, N = problem_sizes(SETTING["d"], SETTING["psi1"], SETTING["psi2"])
    n_test = default_n_test(n)
    st, te = as_student(STUDENT), as_teacher(TEACHER)
    rng = helpers.stream(SEED, "bound matrices")
    with threadpool_limits(limits=threads, user_api="blas"):
        # 1. run and bound, interleaved so that both see the same machine load
        parts = {m: bound_parts(d, n, N, n_test, mixed=m, rng=rng) for m in (False, True)}
        run_t = dict.fromkeys((False, True), float("inf"))
        part_t = {m: dict.fromkeys(parts[m]["scipy"], float("inf")) for m in parts}
        eigh_t = float("inf")
        S = np.cov(rng.standard_normal((N, 2 * N)))
        for m in (False, True):  # warm-up
            simulate_one_step(st, te, lam=LAMBDAS, seed=run_seed("warm-up", 0),
                              precision="mixed" if m else "float64", **SETTING)
        for rep in range(repeat):
            for m in (False, True):
                prec = "mixed" if m else "float64"
                t0 = time.perf_counter()
                simulate_one_step(st, te, lam=LAMBDAS, seed=run_seed("run", rep),
                                  precision=prec, **SETTING)
                run_t[m] = min(run_t[m], time.perf_counter() - t0)
                for lib in ("numpy", "scipy"):  # the faster library counts
                    time.sleep(POOL_SLEEP_S)
                    for k, fn in parts[m][lib].items():
                        part_t[m][k] = min(part_t[m][k], best_of(fn, 1))
            eigh_t = min(eigh_t, best_of(lambda: np.linalg.eigh(S), 1))
        bound = {m: sum(part_t[m].values()) for m in parts}

        # 2. baseline on the same features (and the full run with the baseline's ridge)
        seed = run_seed("baseline", 0)
        res, F, yr, _ = stage_inputs(seed)
        r_fast = fast_stage(res, F, yr, n_test)
        r_base = baseline_stage(res, F, yr, n_test)
        agree = float(np.max(np.abs(r_fast - r_base) / np.abs(r_base)))
        t_fast = t_base = t_step = float("inf")
        for _ in range(max(2, repeat // 2)):  # interleaved
            t_fast = min(t_fast, best_of(lambda: fast_stage(res, F, yr, n_test), 2))
            t_base = min(t_base, best_of(lambda: baseline_stage(res, F, yr, n_test), 1))
            t_step = min(t_step, best_of(lambda: step_and_features(seed), 1))
    return {
        "blas_threads": threads,
        "run": {"float64_s": run_t[False], "mixed_s": run_t[True]},
        "bound": {"float64": {"parts_s": part_t[False], "total_s": bound[False]},
                  "mixed": {"parts_s": part_t[True], "total_s": bound[True]},
                  "eigh_NxN_s": eigh_t},
        "ratio_to_bound": {"float64": run_t[False] / bound[False],
                           "mixed": run_t[True] / bound[True],
                           "mixed_vs_float64_bound": run_t[True] / bound[False]},
        "baseline": {"stage_fast_s": t_fast, "stage_sklearn_s": t_base,
                     "stage_speedup": t_base / t_fast,
                     "step_and_features_s": t_step,
                     "full_run_baseline_s": t_step + t_base,
                     "full_run_speedup": (t_step + t_base) / run_t[False],
                     "max_rel_risk_difference": agree},
    }


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="repetitions (minimum is kept)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, no sweep")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    repeat = 3 if args.quick else args.repeat
    load0 = os.getloadavg()
    d, n, N = problem_sizes(SETTING["d"], SETTING["psi1"], SETTING["psi2"])
    cores = helpers.config.cpu_count()
    core = {str(t): core_timings(t, repeat) for t in sorted({1, cores})}
    mem = {p: peak_memory(p) for p in ("float64", "mixed")}
    par = None if args.quick else sweep_speedup(max(2, repeat // 3))
    acc = float32_accuracy()
    theory = small_step_timing(repeat)
    load1 = os.getloadavg()
    blas = sorted({f"{i['internal_api']} {i['version']}" for i in threadpool_info()
                   if i.get("user_api") == "blas"})
    result = {
        "when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cores": cores, "blas": blas,
                    "python": platform.python_version(), "numpy": np.__version__,
                    "load_avg_start": load0, "load_avg_end": load1},
        "setting": {**SETTING, "n": n, "N": N, "n_test": default_n_test(n),
                    "student": STUDENT, "teacher": TEACHER, "lambdas": LAMBDAS.tolist(),
                    "repeat": repeat},
        "core": core,
        "memory": mem,
        "sweep": par,
        "float32_accuracy_max_delta_in_se": acc,
        "small_step_risk": theory,
    }
    report(result, args.out)
    return result


def _fmt(x, unit="s"):
    return f"{x * 1e3:.1f} ms" if unit == "s" and x < 1 else f"{x:.2f} {unit}"


def report(r: dict, out: Path) -> None:
    mem, cols = r["memory"], list(r["core"])
    C = [r["core"][c] for c in cols]

    def ok(cond):
        return "yes" if cond else "NO"

    def row(label, values, target="", met=None):
        met_s = "" if met is None else " / ".join(ok(m) for m in met)
        return f"| {label} | {' | '.join(values)} | {target} | {met_s} |"

    peak = max(m["max_rss_gb"] for m in mem.values())
    ss = r["small_step_risk"]
    head = " | ".join(f"{c} BLAS thread{'s' if c != '1' else ''}" for c in cols)
    lines = [
        f"# Core benchmark: Figure 3(a) setting ({r['when']})",
        "",
        f"d = {r['setting']['d']}, n = {r['setting']['n']}, N = {r['setting']['N']}, "
        f"n_test = {r['setting']['n_test']}, tanh student, SoftPlus teacher, 8 lambdas; "
        f"every time is the minimum of {r['setting']['repeat']} repetitions; "
        f"{r['machine']['cores']} cores, {', '.join(r['machine']['blas'])}; load average "
        f"{r['machine']['load_avg_start'][0]:.1f} at start, "
        f"{r['machine']['load_avg_end'][0]:.1f} at end (a shared machine: times are noisy). "
        "Sweeps in the book run one run per core with 1 BLAS thread (first column); the "
        "second column lets one run use every core.",
        "",
        f"| measure | {head} | target | met |",
        "|---|" + "---|" * len(cols) + "---|---|",
        row("one run, float64 (default)", [_fmt(c["run"]["float64_s"]) for c in C]),
        row("its matrix-product bound", [_fmt(c["bound"]["float64"]["total_s"]) for c in C]),
        row("**run / bound**, float64", [f"{c['ratio_to_bound']['float64']:.2f}" for c in C],
            "<= 1.5", [c["ratio_to_bound"]["float64"] <= TARGETS["bound_ratio"] for c in C]),
        row("one run, precision='mixed'", [_fmt(c["run"]["mixed_s"]) for c in C]),
        row("its bound (X~W1 and test products in float32)",
            [_fmt(c["bound"]["mixed"]["total_s"]) for c in C]),
        row("run / bound, mixed", [f"{c['ratio_to_bound']['mixed']:.2f}" for c in C],
            "<= 1.5", [c["ratio_to_bound"]["mixed"] <= TARGETS["bound_ratio"] for c in C]),
        row("ridge + risk on the same features: ours",
            [_fmt(c["baseline"]["stage_fast_s"]) for c in C]),
        row("ridge + risk: scikit-learn Ridge once per lambda",
            [_fmt(c["baseline"]["stage_sklearn_s"]) for c in C]),
        row("**speed-up over the baseline** (ridge + risk)",
            [f"{c['baseline']['stage_speedup']:.1f}x" for c in C], ">= 3x",
            [c["baseline"]["stage_speedup"] >= TARGETS["baseline_speedup"] for c in C]),
        row("speed-up over the baseline (whole run, same float64 step)",
            [f"{c['baseline']['full_run_speedup']:.1f}x" for c in C]),
        row("risks, max relative difference ours vs baseline",
            [f"{c['baseline']['max_rel_risk_difference']:.1e}" for c in C], "fp tolerance",
            [c["baseline"]["max_rel_risk_difference"] < 1e-8 for c in C]),
        "",
        "| measure | value | target | met |",
        "|---|---|---|---|",
        f"| peak memory of one run (max RSS of a fresh process) | {peak:.2f} GB | < 1.5 GB | "
        f"{ok(peak < TARGETS['peak_gb'])} |",
        f"| peak of the run's arrays (tracemalloc, float64) | "
        f"{mem['float64']['arrays_peak_gb']:.2f} GB | | |",
    ]
    if ss["status"] == "measured":
        lines.append(f"| small_step_risk, 100 etas ({ss['mode']}) | {_fmt(ss['seconds'])} | "
                     f"< 1 s | {ok(ss['seconds'] < TARGETS['small_step_s'])} |")
    else:
        lines.append(f"| small_step_risk, 100 etas | {ss['status']} | < 1 s | pending |")
    if r["sweep"]:
        sw = r["sweep"]
        lines += [
            f"| sweep of {sw['tasks']} runs (d = 256), serial, all BLAS threads | "
            f"{_fmt(sw['serial_s'])} | | |",
            f"| same, {sw['workers']} workers x {sw['blas_per_worker']} BLAS thread "
            f"(joblib loky) | {_fmt(sw['parallel_s'])} | | |",
            f"| same, {sw['workers']} workers, BLAS threads not limited | "
            f"{_fmt(sw['parallel_unlimited_blas_s'])} | | |",
            f"| parallel speed-up (serial / limited workers) | {sw['speedup']:.2f}x | | |",
        ]
    lines += ["", "The bound, product by product (float64 path; mixed path):", "",
              "| product | " + " | ".join(f"{c} thr. float64 | {c} thr. mixed" for c in cols)
              + " |", "|---|" + "---|---|" * len(cols)]
    for k in C[0]["bound"]["float64"]["parts_s"]:
        vals = []
        for c in C:
            vals += [_fmt(c["bound"]["float64"]["parts_s"][k]),
                     _fmt(c["bound"]["mixed"]["parts_s"][k])]
        lines.append(f"| {k} | " + " | ".join(vals) + " |")
    lines.append("| (not in the bound: full eigh of N x N) | "
                 + " | ".join(f"{_fmt(c['bound']['eigh_NxN_s'])} | " for c in C) + "|")
    lines += ["", "float32 accuracy: max over the lambdas and 3 seeds of "
              "|risk - risk(float64)| / (Monte-Carlo SE of the risk):", ""]
    for k, v in r["float32_accuracy_max_delta_in_se"].items():
        lines.append(f"- {k}: {v:.1e} SE")
    text = "\n".join(lines) + "\n"
    print(text)
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.md").write_text(text, encoding="utf-8")
    (out / "latest.json").write_text(json.dumps(r, indent=2, default=float) + "\n",
                                     encoding="utf-8")


if __name__ == "__main__":
    main()
