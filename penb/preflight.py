"""What the machine can hold, checked before any kernel starts: the run store (a writable folder with room
to write) and a chapter's sizes (an estimate of its largest run's memory against what is available).

Both raise ``ValueError`` with one line naming the figure, so ``python -m penb run`` stops with a clear
error rather than a traceback from inside a kernel.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from penb.device import archived, resolve_device

MIN_FREE_BYTES = 256 * 2**20      # a run writes checkpoints and predictions: refuse a store with less room


def check_store(path: os.PathLike | str) -> Path:
    """The run store folder ``path``, created if missing; ``ValueError`` when it (or a parent) is a file,
    cannot be written, or its disk has less than :data:`MIN_FREE_BYTES` free."""
    p = Path(path)
    hint = "set PENB_STORE to a writable folder"
    for part in (p, *p.parents):
        if part.exists() and not part.is_dir():
            raise ValueError(f"the run store {p} cannot be a folder: {part} is a file ({hint})")
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".penb-probe.", suffix=".tmp", dir=p)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise ValueError(f"the run store {p} is not writable ({err.strerror or err}; {hint})") from None
    free = shutil.disk_usage(p).free
    if free < MIN_FREE_BYTES:
        raise ValueError(f"the disk of the run store {p} is (nearly) full: {free / 2**20:.0f} MiB free, a chapter "
                         f"needs at least {MIN_FREE_BYTES / 2**20:.0f} MiB ({hint} on another disk)")
    return p


def largest(values: Mapping[str, Any], word: str) -> int:
    """The largest int among the fields whose name contains ``word`` (tuples searched); 0 if none."""
    found = [0]
    for k, v in values.items():
        if word in k:
            for x in (v if isinstance(v, (tuple, list)) else (v,)):
                if isinstance(x, int) and not isinstance(x, bool):
                    found.append(x)
    return max(found)


def estimate_bytes(values: Mapping[str, Any]) -> int:
    """A lower-bound estimate of the memory of a chapter's largest run (fp32), from the largest vocabulary V,
    hidden size H, batch B and length L among its fields: parameters with Adam's state (4 copies of an
    embedding and a readout of V x H and gates of 8 H^2) plus one update's activations (logits and their
    gradient, B L x 2V, and the recurrent states, B L x 8H)."""
    V, H = largest(values, "vocab"), largest(values, "hidden")
    B, L = largest(values, "batch"), largest(values, "length")
    params = 2 * V * H + 8 * H * H
    activations = B * L * (2 * V + 8 * H)
    return 4 * (4 * params + activations)


def available_bytes(device: str = "cpu") -> int:
    """Memory a run can use: CUDA's total memory for a GPU device, else the host's MemAvailable."""
    if device.startswith("cuda"):
        return int(torch.cuda.get_device_properties(torch.device(device)).total_memory)
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")


def check_memory(chapter: str, values: Mapping[str, Any]) -> None:
    """``ValueError`` when :func:`estimate_bytes` of ``values`` exceeds :func:`available_bytes` of the device
    the chapter runs on (skipped where its runs go to a cluster, whose nodes are not this machine, and while an
    archived store made elsewhere is read: nothing trains, ``penb.device.archived``)."""
    if values.get("executor") == "submitit" or archived():
        return
    device = "cpu"
    if "device" in values:
        device = str(resolve_device(values["device"]))
    need, have = estimate_bytes(values), available_bytes(device)
    if need > have:
        raise ValueError(f"{chapter}: these sizes need at least {need / 2**30:,.1f} GiB for one run "
                         f"(vocabulary {largest(values, 'vocab'):,}, hidden {largest(values, 'hidden'):,}, "
                         f"batch {largest(values, 'batch'):,}, length {largest(values, 'length'):,}), but "
                         f"{device} has {have / 2**30:,.1f} GiB available")
