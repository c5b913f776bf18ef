"""What GPU work costs, in one module (issue 60): the measured rates (step times at paper size on one H100, the
batched rates of ``BATCHED``) and the charges a plan or a device call's sizing makes from them (a compiled batch's
allowance and speed-up: :func:`charged_seconds`, :func:`chosen_seconds`, :func:`compile_choice`)."""
from __future__ import annotations

import math
import os
import time

import torch

from penb import trunks
from penb.trainer.policy import compiles

# Step times of one update at paper size (h512, batch 512, L64) on one H100 in fp32, as measured
# (shared/anchors/gpu-h100-measurements.md): the GRU at V 256, the LSTM and S4D at V 16,384.
PAPER_STEP_S = {"gru": 0.0140, "lstm": 0.0524, "s4d": 0.0541, "transformer": 0.0524}
ANCHOR_VOCAB = {"gru": 256, "lstm": 16384, "s4d": 16384, "transformer": 16384}
# What the readout and softmax over V add to an update, split off those two measurements: a GRU's gates
# cost 3/4 of an LSTM's, so with R the readout's time at V 16,384 (linear in V),
# 4/3 (14.0 - R/64) + R = 52.4 ms gives R = 34.5 ms (the LSTM's recurrence: 18.0 ms). An estimate, not
# a measurement; the step at another V is the anchor's plus R x (V - anchor V) / 16,384.
READOUT_S = 0.03445


def timed_updates(trainer, updates: int, warmup: int = 1) -> float:
    """Seconds ``trainer`` (a ``penb.trainer.Trainer``) takes for ``updates`` updates after ``warmup`` untimed ones,
    the device synchronised around them: what the call's sizing and ``benchmarks/train_step.py`` measure."""
    cuda = trainer.device.type == "cuda"
    for _ in range(warmup):
        trainer.train_step()
    if cuda:
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(updates):
        trainer.train_step()
    if cuda:
        torch.cuda.synchronize()
    return time.perf_counter() - start


def step_seconds(config) -> float:
    """Estimated seconds of one fp32 update of a run config on one H100: the anchor's time of its core,
    moved to its vocabulary (:data:`READOUT_S`) and scaled by B x L x h^2 from the paper's size."""
    core = config.get("core", "lstm")
    step = PAPER_STEP_S.get(core, 0.05)
    if config.get("vocab_size") is not None:
        step += READOUT_S * (config["vocab_size"] - ANCHOR_VOCAB.get(core, 16384)) / 16384
    scale = config.get("batch_size", 512) * config.get("length", 64) * config.get("hidden", 512) ** 2 / (
        512 * 64 * 512 ** 2)
    return step * scale


def flat(items) -> list:
    """The run configs of a sweep's executor items: a config, or a tuple of configs (the budgets of one trunk,
    ``penb.sweeps.groups``)."""
    return [c for i in items for c in (i if isinstance(i, tuple) else (i,))]


def gpu_hours(configs) -> float:
    """A rough H100-hour estimate of run configs (dicts with core, steps, batch_size, length, hidden and,
    optionally, vocab_size; or a sweep's items, trunk groups as tuples), one run at a time (:func:`step_seconds`),
    each WSD trunk once: its longest budget in full and each shorter budget's decay branch (``penb.trunks``)."""
    alone, groups = trunks.split([c for c in flat(configs) if isinstance(c, dict) and "steps" in c])
    seconds = sum(c["steps"] * step_seconds(c) for c in alone)
    return (seconds + sum(trunks.trunk_updates(g) * step_seconds(g[0]) for g in groups)) / 3600


# Many small runs as one stacked batch (penb.trainer's "stacked" kernel, eager: what a batch too short to pay for its
# compile runs at, and an upper bound of a compiled one's time), measured by benchmarks/batched.py on a lent NVIDIA
# H200 (torch 2.11, fp32, 2026-11-27, commit 94682ce; benchmarks/results/h200-2026-11-27.txt): for each shape
# (core, hidden, length, batch) the run-updates per second of all runs together at each batch size K; K=1 is one run
# with its own cuDNN module. The largest vocabulary of the measured mix is given; a batch's time per update is read off
# these points (:func:`batch_update_seconds`). The compiled batch ran 2.0x (GRU) and 2.3x (LSTM) these at K = 1,024.
BATCHED = {
    ("gru", 64, 16, 64): {"vocab": 32, "rates": {1: 209.3, 16: 739.4, 64: 2700.8, 256: 6885.6, 1024: 9395.8}},
    ("lstm", 128, 16, 64): {"vocab": 512, "rates": {1: 169.9, 16: 581.0, 64: 2321.8, 256: 3474.5, 1024: 3702.1}},
    ("gru", 256, 32, 64): {"vocab": 32, "rates": {1: 120.9, 16: 446.0, 64: 780.0, 256: 841.4}},
    # the paper's size, on a lent H100 (commit b997dea, benchmarks/results/h100-2026-11-27.txt): one run alone
    # already fills the device, so 16 as one batch gain nothing (1.01x); 64 did not fit in its 80 GB
    ("gru", 512, 64, 512): {"vocab": 256, "rates": {1: 70.9, 16: 71.9}},
}
BATCHED_SOURCE = ("benchmarks/batched.py on an NVIDIA H200 (commit 94682ce) and, at the paper's size, an H100 (commit "
                  "b997dea): stacked kernel, eager, fp32; benchmarks/results/h200-2026-11-27.txt, h100-2026-11-27.txt")


def batch_update_seconds(config, k: int) -> tuple[float, bool]:
    """(seconds of one update of a batch of ``k`` runs of ``config``'s shape on one GPU, measured?).

    Measured shapes (:data:`BATCHED`): the time per batch update ``k / rate(k)`` is interpolated linearly in
    ``k`` between the measured batch sizes and extended along the last segment beyond them (the stacked batch's
    update takes 4.8, 21.6, 23.7, 37.2 and 109 ms at K 1, 16, 64, 256 and 1,024 for the quick GRU). A vocabulary
    other than the measured one adds the readout's share (:data:`READOUT_S` scaled to the shape).

    Not measured (False): a GRU/LSTM shape takes its core's nearest measured row (by hidden size) scaled up by the
    larger of its length ratio (the recurrence's launches) and its B x L x h^2 ratio (its arithmetic), never down;
    any other core runs its ``k`` runs one after another at :func:`step_seconds`, but no faster than one quick GRU
    update per 16 steps of length (a small update is bound by launches, not arithmetic)."""
    shape = (config.get("core"), config.get("hidden"), config.get("length"), config.get("batch_size"))
    rows = [(key, row) for key, row in BATCHED.items() if key[0] == shape[0]]
    if not rows:
        return k * alone_seconds(config), False
    key, row = min(rows, key=lambda kr: (kr[0] != shape, abs(kr[0][1] - shape[1])))
    points = sorted((n, n / r) for n, r in row["rates"].items())          # (K, seconds per batch update)
    lo, hi = points[0], points[1]
    for a, b in zip(points, points[1:]):
        lo, hi = a, b
        if k <= b[0]:
            break
    t = max(lo[1] + (hi[1] - lo[1]) * (k - lo[0]) / (hi[0] - lo[0]), points[0][1])
    if key != shape:
        _, h, L, B = key
        t *= max(1.0, shape[2] / L, shape[3] * shape[2] * shape[1] ** 2 / (B * L * h * h))
    scale = config["batch_size"] * config["length"] * config["hidden"] / (512 * 64 * 512)
    t += k * READOUT_S * scale * max(config.get("vocab_size", row["vocab"]) - row["vocab"], 0) / 16384
    return t, key == shape


def alone_seconds(config) -> float:
    """One update of one run alone on one H100: :func:`step_seconds` (its arithmetic, scaled from the paper's size),
    but no less than one quick GRU update per 16 steps of length (a small run is bound by its launches)."""
    floor = config.get("length", 16) / 16 / BATCHED["gru", 64, 16, 64]["rates"][1]
    return max(step_seconds(config), floor)


def batch_seconds(configs, updates: int) -> float:
    """Seconds one H100 takes for ``updates`` updates of ``configs`` (one ``penb.trainer.group_key``) trained as one
    batch (one run: :func:`alone_seconds` each update). The eager batch's update is :func:`batch_update_seconds`,
    never more than its runs one after another. A batch that compiles on CUDA (``penb.trainer.policy.compiles``) is
    charged the compile allowance plus its eager updates over the compiled speed-up measured at its K
    (:func:`compiled_speedup`), but no less than its runs' arithmetic (K x :func:`step_seconds`: at
    the paper's size the batch is compute-bound, and the graph removes launches, not FLOPs)."""
    c, k = configs[0], len(configs)
    one = alone_seconds(c)
    if k == 1:
        return updates * one
    eager = min(batch_update_seconds(c, k)[0], k * one)
    return charged_seconds(torch.device("cuda"), k, updates, eager, floor_s=k * step_seconds(c))


# --- charges: what a compiled batch costs (its compile, its speed-up), read by the plan and a call's sizing ---
CUDA_COMPILE_ALLOWANCE_S = 120.0   # what a plan charges a compiled batch for inductor and CUDA-graph capture: 85-92 s a
                                   # shape on an H200, 88-114 s at the quick sizes on an H100 (165 s at hidden 256)
# The compiled update's speed-up over the eager stacked batch at K runs, each pair measured on one device at one commit
# (benchmarks/results/h100-2026-11-27.txt, h200-2026-11-27.txt). The slice's sizing (penb.call.fit) and the plan's
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
