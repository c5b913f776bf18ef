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

.PHONY: setup book chapters chapter test lab benchmarks clean gpu-wheels gpu-check device-pack device-run device-dry-run
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

# The suite runs with CPU bf16 masked (PENB_CPU_BF16=0): every machine takes the path of a CPU without AMX, the
# one most newcomers have, whatever this one has. Where the CPU does run bf16 autocast (penb.device.cpu_bf16_native,
# unmasked), the bf16 tests (tests/test_bf16_cuda.py) run a second time unmasked: the quick LSTM trains in bf16 on
# such a machine, and only there can its bf16 curve be checked against fp32 (seconds). Elsewhere that run is left out.
test: setup $(VENV)/.lab-stamp
	PENB_CPU_BF16=0 $(PY) -m pytest $(PYTEST_ARGS)
	if $(PY) -c "import sys; from penb.device import cpu_bf16_native; sys.exit(not cpu_bf16_native())"; then \
	  $(PY) -m pytest tests/test_bf16_cuda.py; fi

# JupyterLab with Jupytext's extension, pinned: pyproject's `lab` extra (tests/test_lab.py drives it in Chromium).
$(VENV)/.lab-stamp: $(VENV)/.stamp pyproject.toml
	$(PY) -m pip install --quiet -e ".[lab]"
	touch $@

# Served from the repo root, so that Jupytext reads jupytext.toml; the file browser opens in notebooks/.
lab: setup $(VENV)/.lab-stamp
	$(VENV)/bin/jupyter lab --LabApp.default_url=/lab/tree/notebooks

benchmarks: setup
	for b in benchmarks/*.py; do $(PY) $$b || exit 1; done

# A bare GPU machine (issues 42, 50) has torch, numpy, scipy, pandas, matplotlib, tqdm and filelock but reaches no
# package index and gets no .git. Here, beforehand: `make device-pack` (on a clean commit) writes .device/ (ignored):
# the commit's blob id of every tracked file, and the WikiText-2 copy lm_appendix reads; `make gpu-wheels` downloads
# into .whl/ (ignored) what executing chapters needs beyond the image (scripts/import_check.py checks the set).
# There, in one call each:
#   make device-run OUT=$OUT [CHAPTERS=key_findings] [DEVICE_PRESET=slice|deep|deep_v2] [FROM=.device/from] [BUDGET=s]
#       carry .device (and FROM):
#       scripts/device_call.sh: the tree checked first, a compile probe, the slice sized on the device (never
#       refused; continuing FROM's targets), the CUDA tests, each step under a hard timeout, within BUDGET
#       (penb.call.limits.CALL_BUDGET_S by default); the folder to archive is $OUT/run
#   make device-dry-run [CHAPTERS=...]                 here: what a call would train at the table's rates x 0.5, 1, 2
#   make gpu-check OUT=$OUT                            carry .device and .whl: CUDA tests, benchmark, every chapter at
#                                                      smoke, a smoke slice, within CALL_BUDGET_S (scripts/gpu_check.py)
CHAPTERS ?= key_findings
device-pack: setup
	$(PY) -m penb device-pack

DEVICE_PRESET ?= slice
device-run:
	OUT=$${OUT:-device_out} CHAPTERS=$(CHAPTERS) FROM=$(FROM) PRESET=$(DEVICE_PRESET) bash scripts/device_call.sh

device-dry-run: setup
	$(PY) -m penb device-run --out device_out --dry-run --chapters $(CHAPTERS) --preset $(DEVICE_PRESET)

gpu-wheels:
	bash scripts/gpu_wheels.sh .whl

gpu-check:
	if [ -d .whl ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
	  --target /tmp/site .whl/*.whl || exit 1; fi; \
	PYTHONPATH=/tmp/site:$$PWD python3 scripts/gpu_check.py --out $${OUT:-gpu_check_out}

clean:
	rm -rf _build book/executed
