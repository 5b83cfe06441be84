r"""One BLAS for the simulation core.

The pip wheels of NumPy and SciPy each bundle their own OpenBLAS, and each OpenBLAS keeps
its own pool of worker threads.  After a call, those workers keep spinning on the cores for
a while, waiting for more work.  When a run of the core alternates between the two
libraries (NumPy's ``@`` for the products, SciPy's LAPACK for the ridge systems), the
spinning workers of one library take cores from the other: on 2 cores the Gram matrix
followed by the tridiagonal reduction took 101 ms instead of 61 ms (``benchmarks/``).

So the core sends its large products through SciPy's BLAS (:func:`matmul`, :func:`gram`),
the library that also runs its LAPACK calls, and while a run lasts
(:func:`numpy_blas_single_threaded`) it keeps NumPy's own OpenBLAS at one thread, so that
NumPy's small matrix-vector products never wake a second pool of workers.  Where NumPy and
SciPy share one BLAS (e.g. conda with MKL) nothing is limited.  Results are the same
products; only the library that computes them changes (differences at the level of
floating-point rounding).

Between the products a run does elementwise work (activations, derivatives, scalings) on
arrays of n x N numbers.  :func:`on_row_blocks` spreads it over as many threads as BLAS may
use at that moment (one inside the workers of a parallel sweep), in contiguous row blocks;
the numbers do not depend on the split.
"""

from __future__ import annotations

import contextlib
import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.linalg import blas as _fblas

__all__ = ["matmul", "gram", "numpy_blas_single_threaded", "blas_threads", "on_row_blocks"]

_GEMM = {np.dtype(np.float64): _fblas.dgemm, np.dtype(np.float32): _fblas.sgemm}


def _fortran_operand(M):
    """``(array, trans)`` such that ``op(array)`` is ``M.T`` and ``array`` is F-contiguous."""
    if M.flags.c_contiguous:
        return M.T, False  # the transpose of a C array is an F array: no copy
    if M.flags.f_contiguous:
        return M, True
    return np.ascontiguousarray(M).T, False


def matmul(A, B) -> np.ndarray:
    """``A @ B`` for two 2-D float64 (or two float32) arrays, computed by SciPy's BLAS.

    Returns a C-contiguous array like NumPy does; no input is copied when it is C- or
    F-contiguous.  Any other input (1-D, mixed or non-float dtypes) goes to ``A @ B``.
    """
    A, B = np.asarray(A), np.asarray(B)
    gemm = _GEMM.get(A.dtype)
    if A.ndim != 2 or B.ndim != 2 or B.dtype != A.dtype or gemm is None:
        return A @ B
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"matmul: shapes {A.shape} and {B.shape} do not match "
                         f"(A has {A.shape[1]} columns, B has {B.shape[0]} rows)")
    if 0 in A.shape or 0 in B.shape:
        return A @ B
    # (A B)^T = B^T A^T is computed in Fortran order; its transpose is C-ordered A B.
    a, trans_a = _fortran_operand(B)
    b, trans_b = _fortran_operand(A)
    return gemm(1.0, a, b, trans_a=trans_a, trans_b=trans_b).T


def gram(F, *, scale: float = 1.0, side: str = "columns") -> np.ndarray:
    r"""``scale * F^T F`` (``side="columns"``) or ``scale * F F^T`` (``side="rows"``) for a
    2-D float64 array, by SciPy's ``dsyrk``.

    Only the **lower triangle** is computed (the upper one holds zeros); the result is
    F-contiguous, ready for LAPACK routines that read the lower triangle.
    """
    F = np.asarray(F, dtype=np.float64)
    if F.ndim != 2:
        raise ValueError(f"gram: F must be 2-D; got shape {F.shape}")
    if side not in ("columns", "rows"):
        raise ValueError(f"gram: side must be 'columns' or 'rows'; got {side!r}")
    a, trans = _fortran_operand(F)  # op(a) = F^T, a is F-contiguous
    # dsyrk(trans=0) forms a a^T and dsyrk(trans=1) forms a^T a.
    # F^T F = op(a) op(a)^T, F F^T = op(a)^T op(a).
    want_columns = side == "columns"
    return _fblas.dsyrk(float(scale), a, trans=int(trans == want_columns), lower=1)


def _realpath_under(path, folder) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # e.g. different drives on Windows
        return False


@functools.cache
def _blas_controller():
    """threadpoolctl controller of the loaded BLAS libraries (None without threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return None
    return ThreadpoolController().select(user_api="blas")


def blas_threads() -> int:
    """How many threads the BLAS libraries may use now (the largest limit among them)."""
    controller = _blas_controller()
    counts = [] if controller is None else [
        lib.num_threads for lib in controller.lib_controllers if lib.num_threads]
    return max(counts) if counts else (os.cpu_count() or 1)


#: Fewest array elements per row block worth a thread of its own (about 0.5 ms of tanh).
MIN_BLOCK_ELEMENTS = 131_072


def on_row_blocks(fn, n_rows: int, *, row_size: int = 1, threads: int | None = None) -> None:
    """Call ``fn(rows)`` for contiguous ``slice`` objects that cover ``range(n_rows)``, in
    parallel threads, one block per thread.

    ``fn`` must only touch its own rows (e.g. write ``out[rows]``); NumPy releases the GIL
    in elementwise operations, so the blocks run at the same time.  ``threads`` defaults to
    :func:`blas_threads`; a block gets at least ``MIN_BLOCK_ELEMENTS`` elements (``row_size``
    elements per row), so small arrays stay on the calling thread.  Exceptions propagate.
    """
    threads = blas_threads() if threads is None else int(threads)
    parts = max(1, min(threads, n_rows, n_rows * max(row_size, 1) // MIN_BLOCK_ELEMENTS))
    if parts == 1:
        fn(slice(0, n_rows))
        return
    edges = [n_rows * k // parts for k in range(parts + 1)]
    blocks = [slice(lo, hi) for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
    with ThreadPoolExecutor(max_workers=parts - 1) as pool:
        futures = [pool.submit(fn, rows) for rows in blocks[1:]]
        fn(blocks[0])
        for future in futures:
            future.result()


@functools.cache
def _numpy_only_blas():
    """threadpoolctl controller of the BLAS libraries that ship inside NumPy's wheel and are
    not SciPy's (None when NumPy and SciPy share their BLAS, or threadpoolctl is missing)."""
    controller = _blas_controller()
    if controller is None:  # pragma: no cover - threadpoolctl is a dependency
        return None
    here = os.path.dirname(np.__file__)
    homes = [h for h in (here, os.path.join(os.path.dirname(here), "numpy.libs"))
             if os.path.isdir(h)]
    paths = [lib.filepath for lib in controller.lib_controllers
             if any(_realpath_under(lib.filepath, h) for h in homes)]
    if not paths or len(paths) == len(controller.lib_controllers):
        return None  # NumPy's BLAS is the only one: SciPy uses it too
    return controller.select(filepath=paths)


@contextlib.contextmanager
def numpy_blas_single_threaded():
    """Within the block, NumPy's own bundled BLAS (if it has one apart from SciPy's) runs on
    one thread; see the module docstring.  Other libraries are untouched."""
    numpy_blas = _numpy_only_blas()
    if numpy_blas is None:
        yield
        return
    with numpy_blas.limit(limits=1):
        yield
