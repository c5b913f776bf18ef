"""Where batching and compiling pay (issue 48): measured thresholds, per device, that the trainer, the runner, the
executors and the slice read.

* :func:`batch_pays`: whether K runs train faster as one stacked batch than one at a time, each with its own fused
  module (``nn.GRU``/``nn.LSTM``): on CUDA always; on the CPU for the GRU, and the small LSTM, from a few runs
  (below); :func:`batch_most`: the most runs a CPU batch of the LSTM holds.
* :func:`compiles`: whether a batch compiles its whole update (``torch.compile``; on CUDA a CUDA graph): on CUDA
  with enough updates to go, never on the CPU by default (its eager batch compiles only the element-wise steps of
  the recurrence, ``penb.recurrence``). ``PENB_COMPILE`` overrides.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

import torch


def compiles(device: torch.device, kernel: str, K: int, updates: int, when: str = "auto") -> bool:
    """Whether a batch compiles its whole update: ``when`` "always" or "never", else ("auto") a stacked batch on
    CUDA (its launches captured as a CUDA graph) with at least :data:`CUDA_COMPILE_UPDATES` updates to go. The CPU
    does not ("auto"): its eager batch, whose GRU steps compile alone in seconds (``penb.recurrence``), ran
    faster than the whole update compiled (below). The environment's ``PENB_COMPILE`` ("always" or "never") stands
    in for "auto": a GPU call whose first compiled probe fails trains eager."""
    if when == "auto" and os.environ.get("PENB_COMPILE", "auto") != "auto":
        when = os.environ["PENB_COMPILE"]
        if when not in ("always", "never"):
            raise ValueError(f"PENB_COMPILE={when!r}: expected auto, always or never")
    if when != "auto":
        return when == "always" and kernel == "stacked"
    return kernel == "stacked" and device.type == "cuda" and updates >= CUDA_COMPILE_UPDATES


def _allow_recompiles() -> None:
    """Every batch compiles the same update function; a process that trains many shapes (K, V_max, encodings) must
    not hit dynamo's recompile limit (8 a function by default), which under ``fullgraph`` raises."""
    import torch._dynamo.config as dynamo  # deferred: dynamo loads only where a compile happens

    dynamo.recompile_limit = max(dynamo.recompile_limit, 256)
    dynamo.accumulated_recompile_limit = max(dynamo.accumulated_recompile_limit, 4096)


def batch_pays(configs: Sequence[Mapping[str, Any]], to_go: int, when: str = "auto") -> bool:
    """Whether K > 1 runs (one group key) with ``to_go`` updates left train faster as one stacked batch than one at
    a time, each with its own fused module: on CUDA always; on the CPU for :data:`CPU_BATCH_CORES` (the LSTM up to
    :data:`CPU_LSTM_HIDDEN`), from :data:`CPU_BATCH_RUNS` runs and :data:`CPU_BATCH_UPDATES` updates to go.
    ``when`` is the trainer's compile choice (it does not change the answer: a compiled CPU batch is no slower than
    an eager one)."""
    dev = torch.device(configs[0]["device"])
    if len(configs) < 2:
        return False
    core = configs[0]["core"]
    small = core != "lstm" or configs[0].get("hidden", CPU_LSTM_HIDDEN + 1) <= CPU_LSTM_HIDDEN
    return dev.type == "cuda" or (core in CPU_BATCH_CORES and small and len(configs) >= CPU_BATCH_RUNS
                                  and to_go >= CPU_BATCH_UPDATES)


def batch_most(configs: Sequence[Mapping[str, Any]]) -> int | None:
    """The most runs of ``configs`` (one group key) that one batch should hold, None for no limit: on the CPU the
    LSTM's :data:`CPU_LSTM_MOST` (its gain peaks at a few runs), else the caller's own limit."""
    cpu = torch.device(configs[0]["device"]).type == "cpu"
    return CPU_LSTM_MOST if cpu and configs[0]["core"] == "lstm" else None


# The CPU (one thread of the 2-core AVX-512 EPYC, benchmarks/results/cpu-2026-11-27-eager.txt, quick sizes, eager, each
# against one run with its own nn.GRU / nn.LSTM in the same process): the GRU batch ran 1.37x one run's updates at
# K = 2, 2.3x at 4, 2.6x at 8 and 18; its element-wise steps compile in 2-12 s a shape (cold), paid within 100
# updates from K = 4. The whole update compiled (inductor) ran 0.92x the eager batch at K = 18 after 73 s.
CPU_BATCH_CORES = ("gru", "lstm")   # the CPU batches only these, the LSTM only small: key findings' cell (h128, V 512)
                                 # ran 1.12x at K = 4 and 0.93x at 18 (oneDNN's LSTM already runs one run at 72% of
                                 # a matmul's rate); appendix A's (h64, batch 128, V 256) 1.24x at 4, 1.27x at 8
                                 # and 1.02x at 18 (benchmarks/results/cpu-2026-11-27-eager.txt)
CPU_LSTM_HIDDEN = 64             # the largest LSTM hidden size the CPU batches
CPU_LSTM_MOST = 8                # ... in batches of at most this many runs (its gain peaks at 4-8)
CPU_BATCH_GAIN = {"gru": 2.3, "lstm": 1.24}   # a CPU batch's measured gain on one thread (benchmarks/results/
                                 # cpu-2026-11-27-eager.txt): the GRU 2.0-2.6x over K = 4-64, taken at 2.3; appendix A's
                                 # LSTM 1.24x at K = 4. The executor weighs a batch on one core against its runs spread
                                 # over the other cores with it, and deals a stage's groups by it
CPU_BATCH_RUNS = 4               # below this the CPU trains runs one at a time, each with its own fused module
CPU_BATCH_UPDATES = 200          # ... and with fewer updates to go (a compile of a few seconds to pay)
# On CUDA (an H200, torch 2.11, benchmarks/results/h200-2026-11-27.txt): compiling and capturing the update took 85-92 s
# a shape; it then ran 2.0x (quick GRU) and 2.3x (quick LSTM) the eager stacked batch's updates at K = 1,024. At that
# speed-up a 90 s compile pays once the eager batch would spend 180 s: 1,650 updates of the GRU's 109 ms, 650 of the
# LSTM's 276 ms. A small batch is launch-bound (25 ms an update eager at K = 10 on an H100) and its graph removes most
# of that (10.6x: penb.executors.cost.CUDA_COMPILED_SPEEDUPS), so it pays sooner. One threshold for all:
CUDA_COMPILE_UPDATES = 2000
