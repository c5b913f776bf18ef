# penb: two commands do everything on a fresh machine.
#   make book   set up, execute every chapter at its default preset, build _build/html
#   make test   set up, run the test suite (chapters at the smoke preset + a strict book build)
#   PRESET=gpu make book   on a GPU machine: the gpu presets (chapters without one run quick, device auto)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PRESET ?= quick
VENDOR := book/vendor

.PHONY: setup book chapters chapter test lab benchmarks clean
setup: $(VENV)/.stamp $(VENDOR)/.stamp

# The virtual environment: pinned packages, penb in editable mode, and a kernel named "penb"
# inside the venv so that papermill and JupyterLab never pick up another interpreter.
$(VENV)/.stamp: requirements.txt pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name penb --display-name "Python (penb)" >/dev/null
	touch $@

# Offline JavaScript for widgets and math, from the npm registry (never from a CDN at view time).
$(VENDOR)/.stamp: scripts/fetch_js.sh
	bash scripts/fetch_js.sh $(VENDOR)
	touch $@

chapters: setup
	$(PY) -m penb run-all --preset $(PRESET)

book: chapters
	$(PY) -m penb status
	$(VENV)/bin/jupyter-book build . -W -n --keep-going

# Rerun one chapter with new parameters, e.g. make chapter NAME=invertibility ARGS="-p inits 20"
chapter: setup
	$(PY) -m penb run $(NAME) $(ARGS)

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

lab: setup
	$(VENV)/bin/pip install --quiet jupyterlab
	$(VENV)/bin/jupyter lab notebooks/

benchmarks: setup
	for b in benchmarks/*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf _build book/executed
