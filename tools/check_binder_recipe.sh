#!/usr/bin/env bash
# Check the Binder recipe locally, the way repo2docker uses it, without Docker:
#   1. take the repository as Binder sees it (the committed HEAD; --worktree: the working
#      tree's tracked and untracked-but-not-ignored files),
#   2. build a fresh virtual environment from the Binder files only: runtime.txt (the Python
#      version), requirements.txt (installed from the repository root, so `-e .` installs
#      `helpers`), then postBuild (run with its own HOME, as the Binder user),
#   3. check that postBuild made Markdown/MyST open as "Jupytext Notebook", that `helpers`
#      imports from outside the repository, and execute every chapter and the landing page
#      as a notebook (jupytext --to ipynb, then nbclient's `jupyter execute`) in its folder.
# Usage: tools/check_binder_recipe.sh [--worktree] [--keep]
# Needs the Python named in runtime.txt (e.g. python3.11) and access to the package index.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODE=head
KEEP=0
for arg in "$@"; do
  case "$arg" in
    --worktree) MODE=worktree ;;
    --keep) KEEP=1 ;;
    *) echo "unknown option: $arg (use --worktree, --keep)" >&2; exit 2 ;;
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
for f in requirements.txt runtime.txt postBuild; do
  [ -f "$REPO/$f" ] || { echo "missing Binder file: $f" >&2; exit 1; }
done
if [ -d "$REPO/binder" ] || [ -d "$REPO/.binder" ]; then
  echo "a binder/ folder would make repo2docker ignore the root's Binder files" >&2; exit 1
fi

RUNTIME="$(tr -d '[:space:]' < "$REPO/runtime.txt")"
PY="python${RUNTIME#python-}"
command -v "$PY" >/dev/null || { echo "runtime.txt asks for $PY, not found" >&2; exit 1; }
echo "== 2. fresh environment: $($PY --version) from runtime.txt ($RUNTIME)"
"$PY" -m venv "$WORK/env"
export PATH="$WORK/env/bin:$PATH" HOME="$WORK/home"
export NB_PYTHON_PREFIX="$WORK/env" KERNEL_PYTHON_PREFIX="$WORK/env"
unset JUPYTER_CONFIG_DIR JUPYTER_DATA_DIR PYTHONPATH VIRTUAL_ENV
(cd "$REPO" && pip install --quiet --disable-pip-version-check -r requirements.txt)
pip check
echo "== postBuild"
(cd "$REPO" && ./postBuild)

echo "== 3. checks"
python - <<'PY'
import json, os, pathlib
cfg = pathlib.Path(os.environ["HOME"], ".jupyter/labconfig/default_setting_overrides.json")
viewers = json.loads(cfg.read_text())["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
assert viewers.get("markdown") == viewers.get("myst") == "Jupytext Notebook", viewers
print("default viewers:", viewers)
PY
(cd / && python -c "import helpers, sys; print('helpers from', helpers.__file__); \
assert helpers.__file__.startswith(sys.argv[1]), 'helpers not from the clone'" "$REPO/src")

passed=0; failed=0; failures=()
for md in "$REPO"/intro.md "$REPO"/chapters/*.md; do
  name="${md#"$REPO"/}"
  nb="${md%.md}.ipynb"
  log="$WORK/$(basename "$md" .md).log"
  start=$SECONDS
  if jupytext --quiet --to ipynb "$md" -o "$nb" \
     && (cd "$(dirname "$nb")" && jupyter execute --inplace --timeout=900 "$nb" >"$log" 2>&1); then
    passed=$((passed + 1)); echo "ok      $name ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "FAILED  $name ($((SECONDS - start)) s)"
    grep -E "^[A-Za-z_.]*(Error|Exception)\b" "$log" | tail -5 >&2 || tail -40 "$log" >&2
  fi
done
echo "Binder recipe: $passed passed, $failed failed"
[ "$failed" = 0 ] || { printf 'failed: %s\n' "${failures[@]}" >&2; exit 1; }
