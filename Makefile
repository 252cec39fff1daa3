# The minitorch book. On a fresh Debian/Ubuntu machine:
#
#   make book    build the HTML book, executing every notebook  -> _build/html
#   make test    run the unit tests in tests/ and every notebook in book/ as a test
#
# Both first run scripts/setup.sh: system Graphviz (apt-get) if `dot` is
# missing, a virtual environment in .venv, and requirements.txt installed into
# it (again only when requirements.txt or pyproject.toml change).
#
# Knobs: make PYTHON=python3.12 ...       interpreter for creating .venv
#        make test PYTEST_ARGS="-x -k refcount"   extra pytest arguments
#        make test PERTURB=ulp            with minitorch's inexact results moved by one ulp
#        make NO_APT=1 ...                never call apt-get
#
#   make bench   benchmarks (bench/): minitorch beside numpy by hand, PyTorch and
#                DeZero, in their own virtual environment .venv-bench
#        make bench BENCH_ARGS="--quick"   arguments for python -m bench.run
#
#   make test-launch  every page run alone, as its launch button runs it: copied into an
#                empty folder, with only a wheel of minitorch installed, in .venv-launch
#                (scripts/launch_check.py); one line per page
#        make test-launch LAUNCH_ARGS="book/11c_cnn.ipynb --jobs 1"
#
#   make torch-diff  re-run every chapter with PyTorch in place of minitorch and
#                report the cells whose output differs (in .venv-bench, which has
#                PyTorch) -> _build/torch-diff.md
#        make torch-diff TORCH_DIFF_ARGS="--strict book/04_autograd_graph.ipynb"
#
#   make test-machines  the notebooks under other OpenBLAS kernels, numpy SIMD levels
#                and BLAS thread counts, and `make test` on each Python 3.10-3.13
#                found (scripts/test_machines.py); one line per configuration
#        make test-machines TEST_MACHINES_ARGS="--only py3.12 --jobs 1"
#
# `make test` includes the browser test (tests/browser) when chromium and
# chromium-driver are installed and the book is built (`make book` first).
# The course (python -m classroom, see classroom/README.md), with the .venv Python:
#   make tasks                                  the task list (JSON=1: as JSON; ALL=1: every assignment)
#   make check TASKS="4.1 4.2"                  students: one line per task
#   make setup-check                            students: only what `check` needs (fast)
#   make release OUT=../a1 ASSIGNMENT=a1-engine a student repository
#   make grade SUBMISSIONS=subs/ OUT=grades.csv [ASSIGNMENT=.. JOBS=2 ISOLATE=1 FEEDBACK=dir]
#   make selfcheck                              the course holds together (CI)
#   make mutants [PER_TASK=N]                   generated mutants of every region: the table (_build/mutants.md)
#   make bench-grading                          time grading 30 submissions with 2 jobs

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
BIN := $(CURDIR)/$(VENV)/bin
PYTEST_ARGS ?=
NB_TIMEOUT ?= $(if $(PERTURB),900,300)

# Commands run with the venv's programs first on PATH (so notebook kernels
# find graphviz-pure's `dot` fallback when there is no system Graphviz) and
# with Jupyter preferring the venv's kernel over any user-wide kernel spec.
# numpy's BLAS runs on one thread. That is a belt, not what the stored outputs
# rely on: they hold with 2 threads, other OpenBLAS kernels and numpy's SIMD
# loops off too, as readers run them in Jupyter, Binder or Colab
# (`make test-machines` checks it).
# PERTURB=ulp: minitorch's inexact ops (exp, sums, matrix products...) move their float
# results by one unit in the last place, as another machine's numpy or BLAS might
# (scripts/perturb/minitorch_ulp.py); every compared output must still hold.
PERTURB ?=
RUN := env PATH="$(BIN):$$PATH" JUPYTER_PREFER_ENV_PATH=1 PYDEVD_DISABLE_FILE_VALIDATION=1 \
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	$(if $(PERTURB),PYTHONPATH="$(CURDIR)/scripts/perturb$${PYTHONPATH:+:$$PYTHONPATH}" MINITORCH_PERTURB="$(PERTURB)")

# Unit tests, when the folder exists, and every notebook under book/.
TEST_PATHS := $(wildcard tests) book
NBVAL_ARGS := --nbval --nbval-current-env --nbval-sanitize-with book/sanitize.cfg \
              --nbval-cell-timeout=$(NB_TIMEOUT)

.PHONY: help setup book test test-machines test-launch lab bench torch-diff clean distclean
.PHONY: tasks check setup-check release grade selfcheck mutants bench-grading release-needs-out grade-needs-submissions

help:
	@echo "make book       build the HTML book into _build/html (runs every notebook)"
	@echo "make test       unit tests (tests/) + every notebook in book/ checked with nbval"
	@echo "make test-machines  the tests under other BLAS kernels, SIMD levels, threads, Pythons"
	@echo "make test-launch  every page run alone in an empty folder, only the package installed"
	@echo "make lab        open the notebooks in JupyterLab"
	@echo "make bench      benchmarks: table, bench/results/latest.json and .png, copied to minitorch/book (own venv .venv-bench)"
	@echo "make torch-diff chapters re-run with PyTorch: differing cells -> _build/torch-diff.md"
	@echo "make tasks      the tasks (JSON=1 for JSON, ALL=1 for every assignment's); see classroom/README.md"
	@echo "make check      run the tests of some tasks: make check TASKS=\"4.1 4.2\""
	@echo "make release    a student repository: make release OUT=../a1 ASSIGNMENT=a1-engine"
	@echo "make grade      grade submissions: make grade SUBMISSIONS=subs/ OUT=grades.csv"
	@echo "make selfcheck  check that the course's tasks, tests and releases hold together"
	@echo "make clean      remove build outputs and caches (keeps .venv)"
	@echo "make distclean  clean, and remove .venv and .venv-bench too"

setup:
	@PYTHON="$(PYTHON)" VENV="$(VENV)" NO_APT="$(NO_APT)" scripts/setup.sh

book: setup
	$(RUN) "$(BIN)/jupyter-book" build . -W --keep-going
	@echo
	@echo "The book is built: open $(CURDIR)/_build/html/index.html in a browser."

# pytest exits with 5 when it collected nothing (no tests and no notebooks
# yet): say so, but do not fail on it. The browser test needs chromium,
# chromedriver and a built book; without them it is skipped, and said so here
# as well as in pytest's summary.
test: setup
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then \
	    echo "make test: the browser test (tests/browser) is skipped: chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)."; \
	elif [ ! -f _build/html/book/intro.html ]; then \
	    echo "make test: the browser test (tests/browser) is skipped: the book is not built (run make book first)."; \
	fi
	@rc=0; \
	$(RUN) "$(BIN)/python" -m pytest $(TEST_PATHS) $(NBVAL_ARGS) $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then \
	    echo "make test: pytest collected no tests (no unit tests and no notebooks yet, or all deselected)."; rc=0; \
	fi; \
	exit $$rc

# Each configuration sets its own OPENBLAS_* and NPY_* variables; see the script.
TEST_MACHINES_ARGS ?=
test-machines: setup
	$(RUN) "$(BIN)/python" -m scripts.test_machines $(TEST_MACHINES_ARGS)

# Every page alone in an empty folder with only the package installed, as Colab runs it.
# .venv-launch holds Colab's preinstalled libraries; a fresh wheel of this tree goes into
# it on every run.
LAUNCH_ARGS ?=
test-launch: setup
	env -u PYTHONPATH "$(BIN)/python" -m scripts.launch_check --python $(PYTHON) $(LAUNCH_ARGS)

lab: setup
	$(RUN) "$(BIN)/jupyter" lab book/

# The benchmarks get their own environment, with the optional peers (PyTorch,
# DeZero) from bench/requirements.txt that nothing else here may depend on.
# It is (re)installed when bench/requirements.txt or pyproject.toml change.
BENCH_VENV ?= .venv-bench
BENCH_ARGS ?=

$(BENCH_VENV)/.bench-stamp: bench/requirements.txt pyproject.toml
	[ -x "$(BENCH_VENV)/bin/python" ] || "$(PYTHON)" -m venv "$(BENCH_VENV)"
	"$(BENCH_VENV)/bin/python" -m pip install --disable-pip-version-check --progress-bar off \
	    -e . numpy matplotlib scikit-learn -r bench/requirements.txt
	touch "$@"

bench: $(BENCH_VENV)/.bench-stamp
	"$(BENCH_VENV)/bin/python" -m bench.run $(BENCH_ARGS)

# torch-diff runs the chapters with PyTorch, so it lives in the benchmarks'
# environment too, with what running notebooks needs on top (nbclient and a
# kernel, and the chapters' own imports). It always exits 0 (it is a report)
# unless TORCH_DIFF_ARGS has --strict.
TORCH_DIFF_ARGS ?=
BENCH_BIN := $(abspath $(BENCH_VENV))/bin

$(BENCH_VENV)/.torch-diff-stamp: $(BENCH_VENV)/.bench-stamp
	"$(BENCH_VENV)/bin/python" -m pip install --disable-pip-version-check --progress-bar off \
	    nbclient nbformat ipykernel graphviz graphviz-pure objgraph tqdm
	touch "$@"

torch-diff: $(BENCH_VENV)/.torch-diff-stamp
	env PATH="$(BENCH_BIN):$$PATH" PYTHONPATH="$(CURDIR)" JUPYTER_PREFER_ENV_PATH=1 \
	    PYDEVD_DISABLE_FILE_VALIDATION=1 "$(BENCH_BIN)/python" -m scripts.torch_diff $(TORCH_DIFF_ARGS)
# The course tool. Knobs: JSON=1, ALL=1 (tasks); TASKS (check); OUT, ASSIGNMENT (release);
# SUBMISSIONS, OUT, ASSIGNMENT, JOBS, ISOLATE=1, FEEDBACK (grade); JOBS (selfcheck).
CLASSROOM := $(RUN) "$(BIN)/python" -m classroom
JOBS ?=

# `make tasks` and `make check` set up only when there is no .venv yet, and then only
# what `check` needs (setup-check); `check` itself says what is missing from an older .venv.
tasks: $(if $(wildcard $(VENV)/bin/python),,setup-check)
	$(CLASSROOM) tasks $(if $(JSON),--json) $(if $(ALL),--all)

# `check` exits 3 when nothing failed but some tasks are not done yet (a fresh copy): make
# says that this is the expected start and exits 0; a failure still exits 1.
check: $(if $(wildcard $(VENV)/bin/python),,setup-check)
	@status=0; $(CLASSROOM) check $(TASKS) || status=$$?; \
	if [ $$status -eq 3 ]; then echo "(nothing failed: 'not done' is where each task starts;" \
	  "make check exits 0 then, \`python -m classroom check\` and your CI exit 3)"; exit 0; fi; \
	exit $$status

# The fast path for `check` alone (well under a minute): .venv with requirements-check.txt,
# what a student's CI installs; not the book's toolchain (`make setup` adds it later).
setup-check:
	@PYTHON="$(PYTHON)" VENV="$(VENV)" NO_APT=1 REQUIREMENTS=requirements-check.txt scripts/setup.sh

release: release-needs-out setup
	$(CLASSROOM) release "$(OUT)" $(if $(ASSIGNMENT),--assignment "$(ASSIGNMENT)")

grade: grade-needs-submissions setup
	$(CLASSROOM) grade "$(SUBMISSIONS)" --out "$(or $(OUT),grades.csv)" \
	    $(if $(ASSIGNMENT),--assignment "$(ASSIGNMENT)") $(if $(JOBS),--jobs $(JOBS)) \
	    $(if $(ISOLATE),--isolate) $(if $(FEEDBACK),--feedback "$(FEEDBACK)")

selfcheck: setup
	$(CLASSROOM) selfcheck $(TASKS) $(if $(JOBS),--jobs $(JOBS))

# Every generated mutant of every region (selfcheck grades one per task): the table.
mutants: setup
	$(CLASSROOM) mutants $(TASKS) $(if $(JOBS),--jobs $(JOBS)) $(if $(PER_TASK),--per-task $(PER_TASK)) --out _build/mutants.md

# (checked before setup, which may take a while)
release-needs-out:
	@[ -n "$(OUT)" ] || { echo "make release: say where, e.g. make release OUT=../a1 ASSIGNMENT=a1-engine"; exit 2; }

grade-needs-submissions:
	@[ -n "$(SUBMISSIONS)" ] || { echo "make grade: say what, e.g. make grade SUBMISSIONS=subs/ OUT=grades.csv"; exit 2; }

bench-grading: setup
	$(RUN) "$(BIN)/python" -m bench.grading $(BENCH_ARGS)

clean:
	rm -rf _build .pytest_cache .hypothesis *.egg-info build dist
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name .ipynb_checkpoints \) -type d -print0 \
	    | xargs -0 rm -rf

distclean: clean
	rm -rf $(VENV) $(BENCH_VENV) .venv-launch
