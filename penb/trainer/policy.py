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

import math
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
    import torch._dynamo.config as dynamo

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
# of that (10.6x, below), so it pays sooner. One threshold for all:
CUDA_COMPILE_UPDATES = 2000
CUDA_COMPILE_ALLOWANCE_S = 120.0   # what a plan charges a compiled batch for inductor and CUDA-graph capture: 85-92 s a
                                   # shape on an H200, 88-114 s at the quick sizes on an H100 (165 s at hidden 256)
# The compiled update's speed-up over the eager stacked batch at K runs, each pair measured on one device at one commit
# (benchmarks/results/h100-2026-11-27.txt, h200-2026-11-27.txt). The slice's sizing (penb.call.sizing) and the plan's
# batched hours (penb.executors.cost.batch_seconds) read it, log-linear in K between the points and flat beyond them:
# the smaller the batch, the more of its eager update is launches.
CUDA_COMPILED_SPEEDUPS = ((10, 10.6),      # H100: quick LSTM at V 512 (key findings' cell), 4,240 against 399 run-upd/s
                          (1024, 2.0))     # H200: quick GRU, 18,841 against 9,396 (the quick LSTM: 2.3)


def charged_seconds(device: torch.device, K: int, updates: int, eager_s: float, floor_s: float = 0.0) -> float:
    """What a plan charges ``updates`` updates of a batch of ``K`` runs whose uncompiled update takes ``eager_s``, as
    the trainer's own choice trains it: that, where it does not compile (:func:`compiles`); else
    :data:`CUDA_COMPILE_ALLOWANCE_S` plus each update at ``eager_s`` over :func:`compiled_speedup` (on CUDA; on the
    CPU over 1, an upper bound), but no less than ``floor_s`` (its arithmetic: the graph removes launches, not
    FLOPs). A device call's sizing charges :func:`chosen_seconds` instead, and tells the trainer its choice."""
    eager, compiled = _both(device, K, updates, eager_s, floor_s)
    return compiled if compiles(device, "stacked" if K > 1 else "module", K, updates) else eager


def chosen_seconds(device: torch.device, K: int, updates: int, eager_s: float, floor_s: float = 0.0) -> float:
    """:func:`charged_seconds` under :func:`compile_choice`: a batch compiles only where that is cheaper."""
    eager, compiled = _both(device, K, updates, eager_s, floor_s)
    return compiled if compile_choice(device, K, updates, eager_s, floor_s) == "always" else eager


def compile_choice(device: torch.device, K: int, updates: int, eager_s: float, floor_s: float = 0.0) -> str:
    """"always" or "never" for a planned batch (issue 60: compile only where it pays): where :func:`compiles` would
    compile it, only if its compiled charge is below its eager seconds, unless ``PENB_COMPILE=always`` forces it."""
    if not compiles(device, "stacked" if K > 1 else "module", K, updates):
        return "never"
    if os.environ.get("PENB_COMPILE", "auto") == "always":
        return "always"
    eager, compiled = _both(device, K, updates, eager_s, floor_s)
    return "always" if compiled < eager else "never"


def _both(device: torch.device, K: int, updates: int, eager_s: float, floor_s: float) -> tuple[float, float]:
    """(eager seconds, compiled charge) of ``updates`` updates of a batch of ``K`` runs."""
    speedup = compiled_speedup(K) if device.type == "cuda" else 1.0
    return updates * eager_s, CUDA_COMPILE_ALLOWANCE_S + updates * max(eager_s / speedup, floor_s)


def compiled_speedup(K: int) -> float:
    """The compiled update's measured speed-up over the eager stacked batch at ``K`` runs, interpolated in log K
    between :data:`CUDA_COMPILED_SPEEDUPS` (flat outside them)."""
    (k0, s0), (k1, s1) = CUDA_COMPILED_SPEEDUPS
    if K <= k0 or K >= k1:
        return s0 if K <= k0 else s1
    f = math.log(K / k0) / math.log(k1 / k0)
    return math.exp(math.log(s0) + f * (math.log(s1) - math.log(s0)))
