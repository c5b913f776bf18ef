#!/usr/bin/env bash
# The wheels a bare GPU image lacks (issue 42), for Python 3.12 on manylinux x86-64, into ${1:-.whl} (ignored by git):
# what executing the chapters needs beyond the image's torch, numpy, scipy, pandas, matplotlib, tqdm and filelock
# (papermill, jupytext, ipykernel, ipywidgets, myst-nb's glue, rapidfuzz, submitit and their own needs: about 54 MB,
# under the 64 MiB a GPU call carries with the 2 MB tree), at the
# versions requirements.txt pins; scipy and scikit-learn at the pinned versions too (the image's scipy 1.18.1 broke
# the encodings chapter's scikit-learn: "ndtr() takes from 1 to 2 positional arguments"). Packages the image holds
# already are deleted after the download (one version of each: two stop the install there).
set -euo pipefail
dest=${1:-.whl}
mkdir -p "$dest"
pin() { grep -E "^$1==" requirements.txt | head -1; }
# matplotlib-inline: the kernel's plotting backend, which the image lacks (issue 50); docutils: myst-nb's glue imports
# its logger, which imports docutils; pytest: the CUDA tests of a device call; sentencepiece: lm_appendix's tokenizer
# (all four found missing by scripts/import_check.py)
want=(papermill jupytext ipykernel ipywidgets nbclient nbformat jupyter_client rapidfuzz submitit scipy scikit-learn
      matplotlib-inline docutils pytest sentencepiece)
specs=()
for p in "${want[@]}"; do specs+=("$(pin "$p" || echo "$p")"); done
if [ "${2:-}" != "--prune-only" ]; then                # --prune-only: only the deletion below (tests/test_device_run.py)
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp --abi cp312 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any -d "$dest" "${specs[@]}" \
  2>&1 | grep -v "^WARNING: Location" || true
# myst-nb alone: the chapters import only its `glue` (no Sphinx, no jupyter-cache: 20 MB less)
python3 -m pip download -q --no-deps --only-binary=:all: -d "$dest" "$(pin myst-nb)" 2>&1 | grep -v "^WARNING: Location" || true
fi
# the image's own (KINDS.md): never carried. A wheel's file name is its distribution's name (- and . as _), a dash
# and its version, so each is matched as NAME-<digit>: NAME_* would also take matplotlib_inline for matplotlib.
shopt -s nocaseglob
for have in torch numpy pandas matplotlib pillow tqdm filelock jinja2 markupsafe packaging pyyaml pygments \
            typing_extensions sympy networkx fsspec triton requests urllib3 idna certifi charset_normalizer \
            python_dateutil six attrs psutil joblib threadpoolctl cloudpickle setuptools kiwisolver cycler fonttools \
            contourpy pyparsing tzdata pytz click rich markdown_it_py mdurl \
            debugpy jedi parso widgetsnbextension; do    # optional: a kernel without a debugger or completion
  rm -f "$dest"/${have}-[0-9]*.whl
done
rm -f "$dest"/nvidia_*.whl                              # CUDA's own libraries come with the image's torch
du -sh "$dest"
