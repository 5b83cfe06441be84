#!/usr/bin/env bash
# Check the Binder recipe locally, the way repo2docker uses it, without Docker:
#   1. take the repository as Binder sees it (the committed HEAD; --worktree: the working
#      tree's tracked and untracked-but-not-ignored files),
#   2. build a fresh virtual environment from the Binder files only (repo2docker reads
#      binder/ before the root): binder/runtime.txt (the Python version),
#      binder/requirements.txt (installed from the repository's root, so `-e .` installs
#      `helpers`), then binder/postBuild (run with its own HOME, as the Binder user); the
#      time the install takes is printed,
#   3. check that postBuild made Markdown/MyST open as "Jupytext Notebook", that `helpers`
#      imports from outside the repository, that none of the build and test stack was
#      installed, and run every chapter and the landing page as a script (jupytext --to py,
#      quick scale, MPLBACKEND=Agg, in its folder, under binder/start), hidden checks
#      included.
# Usage: tools/check_binder_recipe.sh [--worktree] [--keep] [--install-only] [--full-install-only]
#   --install-only: stop after timing the install of binder/requirements.txt;
#   --full-install-only: time the install of the root requirements.txt instead (what Binder
#   installed before binder/ existed) and stop there: the "before" of the comparison.
# Needs the Python named in binder/runtime.txt (e.g. python3.11) and the package index.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODE=head
KEEP=0
FULL=0
ONLY=0
for arg in "$@"; do
  case "$arg" in
    --worktree) MODE=worktree ;;
    --keep) KEEP=1 ;;
    --install-only) ONLY=1 ;;
    --full-install-only) FULL=1; ONLY=1 ;;
    *) echo "unknown option: $arg (use --worktree, --keep, --install-only, --full-install-only)" >&2
       exit 2 ;;
  esac
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/binder-check.XXXXXX")"
if [ "$KEEP" = 0 ]; then trap 'rm -rf "$WORK"' EXIT; fi
REPO="$WORK/repo"
mkdir -p "$REPO" "$WORK/home"

echo "== 1. repository ($MODE) -> $REPO"
if [ "$MODE" = head ]; then
  git -C "$ROOT" archive HEAD | tar -x -C "$REPO"
else
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
     | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
     | xargs -0 cp --parents -t "$REPO")
fi
for f in requirements.txt runtime.txt postBuild start; do
  [ -f "$REPO/binder/$f" ] || { echo "missing Binder file: binder/$f" >&2; exit 1; }
done
for f in postBuild start runtime.txt environment.yml; do
  [ ! -e "$REPO/$f" ] || { echo "$f at the root: repo2docker ignores it (binder/ exists)" >&2; exit 1; }
done

RUNTIME="$(tr -d '[:space:]' < "$REPO/binder/runtime.txt")"
PY="python${RUNTIME#python-}"
command -v "$PY" >/dev/null || { echo "binder/runtime.txt asks for $PY, not found" >&2; exit 1; }
REQS=binder/requirements.txt
[ "$FULL" = 0 ] || REQS=requirements.txt
echo "== 2. fresh environment: $($PY --version) from binder/runtime.txt ($RUNTIME), $REQS"
"$PY" -m venv "$WORK/env"
export PATH="$WORK/env/bin:$PATH" HOME="$WORK/home"
export NB_PYTHON_PREFIX="$WORK/env" KERNEL_PYTHON_PREFIX="$WORK/env"
unset JUPYTER_CONFIG_DIR JUPYTER_DATA_DIR PYTHONPATH VIRTUAL_ENV
start=$SECONDS
(cd "$REPO" && pip install --quiet --disable-pip-version-check -r "$REQS")
echo "install: $((SECONDS - start)) s for $REQS; $(pip list --format=freeze 2>/dev/null | wc -l) packages;" \
     "$(du -sm "$WORK/env" | cut -f1) MB"
pip check
[ "$ONLY" = 0 ] || exit 0
echo "== postBuild"
(cd "$REPO" && ./binder/postBuild)

echo "== 3. checks"
python - <<'PY'
import json, os, pathlib
from importlib.metadata import distributions
cfg = pathlib.Path(os.environ["HOME"], ".jupyter/labconfig/default_setting_overrides.json")
viewers = json.loads(cfg.read_text())["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
assert viewers.get("markdown") == viewers.get("myst") == "Jupytext Notebook", viewers
print("default viewers:", viewers)
names = {d.metadata["Name"].lower().replace("_", "-") for d in distributions()}
stack = names & {"sphinx", "jupyter-book", "pytest", "ruff", "playwright", "nbval", "coverage",
                 "dask", "distributed"}
assert not stack, f"the build and test stack reached Binder: {sorted(stack)}"
assert {"jupyterlab", "jupyterlab-myst", "jupytext", "ipykernel"} <= names
print("no Sphinx, jupyter-book, pytest, ruff, Playwright, nbval, coverage or Dask installed")
PY
(cd / && python -c "import helpers, sys; print('helpers from', helpers.__file__); \
assert helpers.__file__.startswith(sys.argv[1]), 'helpers not from the clone'" "$REPO/src")

passed=0; failed=0; failures=()
for md in "$REPO"/intro.md "$REPO"/chapters/*.md; do
  name="${md#"$REPO"/}"
  script="$WORK/$(basename "$md" .md).py"
  log="$WORK/$(basename "$md" .md).log"
  start=$SECONDS
  if jupytext --quiet --to py "$md" -o "$script" \
     && (cd "$(dirname "$md")" && BOOK_SCALE=quick BOOK_PROGRESS=0 MPLBACKEND=Agg \
         "$REPO/binder/start" python "$script" >"$log" 2>&1); then
    passed=$((passed + 1)); echo "ok      $name ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "FAILED  $name ($((SECONDS - start)) s)"
    grep -E "^[A-Za-z_.]*(Error|Exception)\b" "$log" | tail -5 >&2 || tail -40 "$log" >&2
  fi
done
echo "Binder recipe: $passed passed, $failed failed"
[ "$failed" = 0 ] || { printf 'failed: %s\n' "${failures[@]}" >&2; exit 1; }
