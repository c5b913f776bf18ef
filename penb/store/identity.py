"""Code identity of stored results: the store version, and the environment recorded with every run.

``STORE_VERSION`` is part of every run key (``penb.runs.key``). Bump it whenever a change to a model, a
task, the training loop or the evaluation would change what a run produces: stored runs of the old
version are then never reused, and a partial run of the old version is never resumed under new code
(its checkpoints record the version; ``penb.trainer`` refuses a mismatch). History:

* 1: the layout of sessions 1-2 (keys hashed the normalised config alone);
* 2: key = store version + normalised config without bookkeeping (``log_every``; ``device`` as its
  type, so "cuda" and "cuda:0" share runs); divergence check; non-finite entries counted per update.
* 3: a position-encoded GRU/LSTM on the CPU computes its encoding's input projection once per position
  (``penb.models.RNNCore.forward_positional``): the same maths and parameters, other float rounding (issue 26).
* 4: one trainer over a run axis (``penb.trainer``, issue 48): training batches drawn in blocks keyed by (seed,
  block), so other data than version 3's generator stream; Adam and clipping written out per run (other rounding);
  the loss over the steps from the task's ``scored_from`` on, masked; checkpoints without a generator state.

Not a version: since 4 a run's float rounding depends on how it trained (its own module or a stacked batch, the
batch's K, compiled or not), and the key names the maths, not the kernel. So the stacked kernel's later changes of
rounding alone (issue 48: input terms read from a per-token table, the recurrence's backward written out) kept
version 4; a test holds each run of a batch to the run trained alone (``tests/test_trainer.py``, fp64).
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

import numpy
import scipy
import torch

STORE_VERSION = 4


# -- the run key: ``penb.runs.key`` hashes a configuration's fields here (``penb.trunks`` a trunk's) ----------------
BOOKKEEPING = ("log_every",)        # run fields that do not change a result: left out of the key


def hashed(fields: Mapping[str, Any]) -> str:
    """sha256 (16 hex digits) of the canonical JSON of ``fields`` (a run's or a trunk's key fields, which
    :func:`penb.runs.key_fields` makes from a configuration: the store hashes what it is given)."""
    blob = json.dumps(dict(fields), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


CLEAN_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")    # a commit a reader can check out (no "+dirty")


@lru_cache(maxsize=1)
def git_commit() -> str:
    """The commit of the penb checkout (with "+dirty" when it has uncommitted changes), or "" outside git."""
    top = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(top), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(top), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return head + ("+dirty" if dirty else "")


def environment(device: str = "cpu") -> dict:
    """What made a result: store version, penb version, git commit, torch/numpy/scipy versions, Python,
    the device's name and the number of torch threads."""
    try:
        penb_version = metadata.version("penb")
    except metadata.PackageNotFoundError:
        penb_version = "unknown"
    name = platform.processor() or platform.machine()
    if device.startswith("cuda") and torch.cuda.is_available():
        name = torch.cuda.get_device_name(torch.device(device))
    return {"store_version": STORE_VERSION, "penb": penb_version, "git_commit": git_commit(),
            "torch": torch.__version__, "numpy": numpy.__version__, "scipy": scipy.__version__,
            "python": platform.python_version(), "device": device, "device_name": name,
            "threads": torch.get_num_threads(), "pid": os.getpid()}
