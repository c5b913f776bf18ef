"""Runs per device-minute of the one trainer (penb.trainer, issue 48): K runs in one stacked batch against one run at
a time with its own fused module (``nn.GRU``/``nn.LSTM``).

    .venv/bin/python benchmarks/batched.py                                  # CPU rows, one thread (the issue's test)
    .venv/bin/python benchmarks/batched.py --device cuda --k 1,16,64,256,1024 --sizes quick,quick_lstm,h256,paper
    .venv/bin/python benchmarks/batched.py --tiny                           # seconds: checks that it works

A batch is a figure's mix: vocabularies V/4, V/2 and V (V alone with ``--one-vocab``), sinusoidal and vanilla,
seeds, cycled to K runs (key findings' quick GRU cells are V 8, 16, 32 x 2 encodings x 3 seeds: K = 18 at ``--sizes
quick``; its LSTM cells V 512 x 2 x 3: ``--sizes quick_lstm --one-vocab``). The K = 1 row trains each cell alone
and gives their mean seconds per update, what one run at a time costs on average for that mix. Each row times
``--steps`` whole updates (data, forward, backward, per-run clipping, Adam, the logging read every 100) after
``--warmup`` untimed ones, repeated ``--repeats`` times (the minimum kept); ``compile s`` is the first update of a
compiled batch (``penb.trainer.policy.compiles``), or of an eager batch whose GRU steps compile
(``penb.recurrence``), less one timed update; run with a fresh ``TORCHINDUCTOR_CACHE_DIR`` for a cold compile. ``x one run`` is the batch's run-updates per second over one run's
updates per second; ``pays after`` is how many updates of the batch pay for its compile. FLOPs per run-update count
the GEMMs (input term, recurrence, readout over the scored steps; x3 for forward and backward);
``of matmul`` divides the achieved FLOP/s by a large square matmul's measured FLOP/s on the same device and threads.
"""
from __future__ import annotations

import argparse
import time

import torch

from penb.trainer import Trainer

BASE = dict(task="reverse", steps=10**6, warmup=100, lr=1e-3, held_out=64, log_every=100, checkpoint_every=10**6,
            dtype="float32")
SIZES = {
    "quick": dict(core="gru", hidden=64, length=16, vocab_size=32, batch_size=64, lr=1e-2),
    # the long run's V 256 cell (issue 65: deep_v2/deep_v3's GRU, one worker's five runs; with --one-vocab)
    "deep_v256": dict(core="gru", hidden=64, length=16, vocab_size=256, batch_size=64, lr=1e-2),
    "quick_lstm": dict(core="lstm", hidden=128, length=16, vocab_size=512, batch_size=64, lr=3e-3),
    "appA_lstm": dict(core="lstm", hidden=64, length=16, vocab_size=256, batch_size=128, lr=1e-2),  # appendix A's
    "h256": dict(core="gru", hidden=256, length=32, vocab_size=32, batch_size=64),
    "paper": dict(core="gru", hidden=512, length=64, vocab_size=256, batch_size=512),
    # the paper's model at an eighth of its batch: a candidate for the gpu preset within one H100-hour (issue 48),
    # where the runs' batch, not one run's, fills the device
    "paper_b64": dict(core="gru", hidden=512, length=64, vocab_size=256, batch_size=64),
    "paper_lstm_b64": dict(core="lstm", hidden=512, length=64, vocab_size=4096, batch_size=64),
    "tiny": dict(core="gru", hidden=16, length=4, vocab_size=8, batch_size=16),
}


def cells(size: dict, one_vocab: bool = False) -> list[tuple]:
    """A figure's cells: (V/4, V/2, V, or V alone) x (sinusoidal, vanilla)."""
    V = size["vocab_size"]
    vocabs = (V,) if one_vocab else (max(V // 4, size["length"] // 4 + 2), V // 2, V)
    return [(v, e) for v in vocabs for e in ("sinusoidal", "none")]


def mix(size: dict, k: int, one_vocab: bool = False) -> list[dict]:
    """K runs of one figure: its :func:`cells`, seeds 1, 2, ... cycled."""
    cs = cells(size, one_vocab)
    return [{**BASE, **size, "vocab_size": cs[i % len(cs)][0], "encoding": cs[i % len(cs)][1],
             "seed": 1 + i // len(cs)} for i in range(k)]


def flops(c: dict) -> float:
    """GEMM FLOPs of one run-update (forward x 3)."""
    G = 3 if c["core"] == "gru" else 4
    H, B, L, V = c["hidden"], c["batch_size"], c["length"], c["vocab_size"]
    T, S = 2 * L, L
    fwd = 2 * B * T * H * G * H + 2 * T * H * G * H + 2 * B * T * H * G * H + 2 * B * S * H * V
    return 3.0 * fwd


def matmul_rate(device: torch.device, n: int = 1024) -> float:
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    for _ in range(3):
        a @ b
    sync(device)
    start = time.perf_counter()
    for _ in range(10):
        a @ b
    sync(device)
    return 10 * 2 * n ** 3 / (time.perf_counter() - start)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def rate(configs: list[dict], steps: int, warmup: int, repeats: int, compile: str) -> tuple[float, float]:
    """(run-updates per second, compile seconds) of ``configs`` as one trainer."""
    t = Trainer(configs, kernel="stacked" if len(configs) > 1 else "auto", compile=compile)   # K = 1: its own module
    dev = t.device
    start = time.perf_counter()
    t.train_step()
    sync(dev)
    first = time.perf_counter() - start          # a whole-update compile, or the element-wise GRU steps' (CPU)
    for _ in range(warmup):
        t.train_step()
    best = float("inf")
    for _ in range(repeats):
        sync(dev)
        start = time.perf_counter()
        for _ in range(steps):
            t.train_step()
        sync(dev)
        best = min(best, time.perf_counter() - start)
    return len(configs) * steps / best, max(first - best / steps, 0.0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cpu")
    p.add_argument("--sizes", default="quick,quick_lstm")
    p.add_argument("--k", default="1,18,64")
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--compile", default="auto", choices=["auto", "always", "never"])
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--one-vocab", action="store_true", help="every run at the size's V (key findings' LSTM cell)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    if a.tiny:
        a.sizes, a.k, a.steps, a.warmup, a.repeats, a.compile = "tiny", "1,4", 5, 1, 1, "never"
    dev = torch.device(a.device)
    ref = matmul_rate(dev)
    print(f"device {dev} ({torch.cuda.get_device_name(dev) if dev.type == 'cuda' else 'cpu'}), {a.threads} "
          f"thread(s), torch {torch.__version__}, matmul {ref / 1e9:.0f} GFLOP/s")
    print(f"{'size':<11}{'K':>5}{'run-upd/s':>11}{'runs/min*':>10}{'x one run':>10}{'compile s':>10}"
          f"{'pays after':>11}{'GFLOP/upd':>10}{'of matmul':>10}")
    for name in a.sizes.split(","):
        size = {**SIZES[name], "device": a.device}
        one = None
        for k in (int(x) for x in a.k.split(",")):
            configs = mix(size, k, a.one_vocab)
            try:
                if k == 1:      # one run at a time: each cell alone, their mean seconds per update
                    alone = [rate([c], a.steps, a.warmup, a.repeats, a.compile) for c in mix(
                        size, len(cells(size, a.one_vocab)), a.one_vocab)]
                    r, comp = len(alone) / sum(1 / x for x, _ in alone), max(c for _, c in alone)
                else:
                    r, comp = rate(configs, a.steps, a.warmup, a.repeats, a.compile)
            except torch.OutOfMemoryError:
                print(f"{name:<11}{k:>5}  out of memory")
                continue
            one = r if k == 1 else one
            gain = r / one if one else float("nan")
            pays = comp / (k / one - k / r) if one and r > one else float("inf")
            f = sum(flops(c) for c in configs) / k
            print(f"{name:<11}{k:>5}{r:>11.1f}{60 * r / 2000:>10.2f}{gain:>10.2f}{comp:>10.1f}{pays:>11.0f}"
                  f"{f / 1e9:>10.3f}{r * f / ref:>10.2%}")
    print("* runs of 2,000 updates (the quick GRU's budget) per device-minute")


if __name__ == "__main__":
    main()
